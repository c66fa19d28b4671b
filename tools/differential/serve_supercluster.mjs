// supercluster in node for supercluster.py: one case a line on stdin ({"options", "points",
// "queries": [[bbox, zoom], ...], "tiles": [[z, x, y], ...], "limit", "offset"}; a limit may be
// "Infinity"), one answer a line.
// usage: node serve_supercluster.mjs SUPERCLUSTER_CHECKOUT (with kdbush in its node_modules)
import {createInterface} from 'node:readline';
import {pathToFileURL} from 'node:url';
import {join} from 'node:path';

const {default: Supercluster} = await import(pathToFileURL(join(process.argv[2], 'index.js')).href);
for await (const line of createInterface({input: process.stdin, crlfDelay: Infinity})) {
    let out;
    try {
        const c = JSON.parse(line);
        const index = new Supercluster(c.options).load(c.points);
        const clusters = c.queries.map(([bbox, z]) => index.getClusters(bbox, z));
        // Some clusters of the first query with any: their children, leaves and expansion zoom.
        const found = clusters.find((items) => items.some((f) => f.properties.cluster)) || [];
        const ids = found.filter((f) => f.properties.cluster).map((f) => f.properties.cluster_id);
        const picked = [...new Set([ids[0], ids[ids.length >> 1], ids[ids.length - 1]])].filter((id) => id != null);
        out = {
            clusters,
            tiles: c.tiles.map(([z, x, y]) => {
                const tile = index.getTile(z, x, y);
                return tile ? tile.features : null;
            }),
            drill: picked.map((id) => ({
                id,
                children: index.getChildren(id),
                leaves: index.getLeaves(id, Number(c.limit), c.offset),
                expansionZoom: index.getClusterExpansionZoom(id),
            })),
        };
    } catch (e) {
        out = {error: String(e && e.message)};
    }
    process.stdout.write(JSON.stringify(out) + '\n');
}
