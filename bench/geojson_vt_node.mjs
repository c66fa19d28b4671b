// geojson-vt JS timed in node, beside bench_tiles.py's figures (geojson-vt is not pip-installable).
// usage: node bench/geojson_vt_node.mjs GEOJSON_VT_CHECKOUT FILE.geojson [--first [OPTIONS_JSON]]
//   (a checkout of github.com/mapbox/geojson-vt; its src/ is imported as is)
// With --first: only the process's first build (options as JSON, geojson-vt's defaults without), its
// wall time, CPU time (node's own threads too: its collector and compiler run beside the build) and
// minor page faults, which bench/first_builds.py sets beside MapCore's first build in fresh processes.
// Prints the median of 3 index builds with geojson-vt's defaults and with MapLibre's GeoJSON source
// options, the first of the three with the defaults (the first build of a fresh process, as
// bench_tiles.py's child times MapCore's), the tiles of zooms 0-8 that have data, and the heap used.
import {readFileSync} from 'node:fs';
import {pathToFileURL} from 'node:url';
import {join} from 'node:path';

const [checkout, file, mode, optionsJSON] = process.argv.slice(2);
const {default: geojsonvt} = await import(pathToFileURL(join(checkout, 'src', 'index.js')).href);
const data = JSON.parse(readFileSync(file, 'utf8'));
if (mode === '--first') {
    const options = optionsJSON ? JSON.parse(optionsJSON) : {};
    const faults = process.resourceUsage().minorPageFault;
    const cpu = process.cpuUsage(), t = performance.now();
    geojsonvt(data, options);
    const ms = performance.now() - t, used = process.cpuUsage(cpu);
    console.log(`first ${ms.toFixed(1)} ms, cpu ${((used.user + used.system) / 1e3).toFixed(1)} ms, ` +
        `faults ${process.resourceUsage().minorPageFault - faults}`);
    process.exit(0);
}
// Sorts a copy, so that `times[0]` stays the first build.
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

function time(options) {
    const times = [];
    let index;
    for (let i = 0; i < 3; i++) {
        const t = performance.now();
        index = geojsonvt(data, options);
        times.push(performance.now() - t);
    }
    return [median(times), index, times[0]];
}

const [tDefault, index, tFirst] = time({});
const [tMapLibre] = time({extent: 8192, buffer: 2048, tolerance: 6, maxZoom: 18});
let tiles = 0;
const t = performance.now();
const frontier = [[0, 0, 0]];
while (frontier.length) {
    const [z, x, y] = frontier.pop();
    const tile = index.getTile(z, x, y);
    if (!tile || !tile.features.length) continue;
    tiles++;
    if (z < 8) for (const [dx, dy] of [[0, 0], [0, 1], [1, 0], [1, 1]]) frontier.push([z + 1, 2 * x + dx, 2 * y + dy]);
}
const tTiles = performance.now() - t;
console.log(JSON.stringify({features: data.features.length, buildDefaultMs: tDefault, buildDefaultFirstMs: tFirst,
    buildMapLibreMs: tMapLibre,
    tilesZ0to8: tiles, tilesMs: tTiles, heapUsedMB: process.memoryUsage().heapUsed / 1e6}));
