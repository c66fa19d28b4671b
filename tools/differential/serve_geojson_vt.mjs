// geojson-vt in node for geojson_vt.py: one case a line on stdin ({"data", "options", "requests":
// [[z, x, y], ...]}), one answer a line ({"tiles": [features or null, ...]} or {"error"}).
// usage: node serve_geojson_vt.mjs GEOJSON_VT_CHECKOUT
import {createInterface} from 'node:readline';
import {pathToFileURL} from 'node:url';
import {join} from 'node:path';

const {default: geojsonvt} = await import(pathToFileURL(join(process.argv[2], 'src', 'index.js')).href);
for await (const line of createInterface({input: process.stdin, crlfDelay: Infinity})) {
    let out;
    try {
        const c = JSON.parse(line);
        const index = geojsonvt(c.data, c.options);
        out = {tiles: c.requests.map(([z, x, y]) => {
            const tile = index.getTile(z, x, y);
            return tile ? tile.features : null;
        })};
    } catch (e) {
        out = {error: String(e && e.message)};
    }
    process.stdout.write(JSON.stringify(out) + '\n');
}
