// vector-tile-js 1.3 (what MapLibre GL JS 5.3 bundles) for vector_tile.py: one case a line on stdin
// ({"tile": base64, "z", "x", "y"}; z null: tile coordinates), one answer a line ({"layers": {name:
// {"extent", "version", "features"}}}: toGeoJSON(x, y, z) features, or type, id, properties and
// loadGeometry() rings as [x, y] pairs).
// usage: node serve_vector_tile.mjs DIRECTORY (whose node_modules hold @mapbox/vector-tile and pbf)
import {createInterface} from 'node:readline';
import {createRequire} from 'node:module';
import {join} from 'node:path';

const require = createRequire(join(process.argv[2], 'node_modules'));
const {VectorTile} = require('@mapbox/vector-tile');
const Pbf = require('pbf');
for await (const line of createInterface({input: process.stdin, crlfDelay: Infinity})) {
    let out;
    try {
        const c = JSON.parse(line);
        const tile = new VectorTile(new Pbf(Buffer.from(c.tile, 'base64')));
        const layers = {};
        for (const [name, layer] of Object.entries(tile.layers)) {
            const features = [];
            for (let i = 0; i < layer.length; i++) {
                const f = layer.feature(i);
                features.push(c.z === null
                    ? {type: f.type, id: f.id, properties: f.properties,
                        geometry: f.loadGeometry().map((ring) => ring.map((p) => [p.x, p.y]))}
                    : f.toGeoJSON(c.x, c.y, c.z));
            }
            layers[name] = {extent: layer.extent, version: layer.version, features};
        }
        out = {layers};
    } catch (e) {
        out = {error: String(e && e.message)};
    }
    process.stdout.write(JSON.stringify(out) + '\n');
}
