// supercluster in node for supercluster.py: one case a line on stdin ({"options", "points",
// "queries": [[bbox, zoom], ...], "tiles": [[z, x, y], ...]}), one answer a line.
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
        out = {
            clusters: c.queries.map(([bbox, z]) => index.getClusters(bbox, z)),
            tiles: c.tiles.map(([z, x, y]) => {
                const tile = index.getTile(z, x, y);
                return tile ? tile.features : null;
            }),
        };
    } catch (e) {
        out = {error: String(e && e.message)};
    }
    process.stdout.write(JSON.stringify(out) + '\n');
}
