#!/usr/bin/env node
// Writes Tests/fixtures/js-math/cases.txt: arguments and this node's Math.sin, Math.log, Math.exp
// and Math.atan of them, as the bits of each double, which JSMathTests compares JSMath with.
//
//   node tools/js-math/generate.mjs
//
// The arguments reach every branch of fdlibm's algorithms (which V8 computes these with): tiny
// ones, each interval of the argument reductions, the neighbourhoods of multiples of π/2, of 1
// and of the overflow and underflow bounds, subnormals, and the ranges geojson-vt and
// supercluster project latitudes in. A seeded generator makes the same file every time.
import {writeFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {dirname, join} from 'node:path';

let state = 0x2545f491n;
function random() { // xorshift64*, as a double in [0, 1)
    state ^= state >> 12n; state ^= (state << 25n) & 0xffffffffffffffffn; state ^= state >> 27n;
    const r = (state * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
    return Number(r >> 11n) / 2 ** 53;
}
const uniform = (a, b) => a + (b - a) * random();
const bits = (v) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, v);
    return view.getBigUint64(0).toString(16).padStart(16, '0');
};
const repeat = (n, f) => Array.from({length: n}, f);

const latitude = () => uniform(-90, 90) * Math.PI / 180;
const sin = [
    0, -0, 1e-300, -5e-324, 1e-9, Math.PI / 4, Math.PI / 2, -Math.PI / 2, 3 * Math.PI / 4, Infinity, -Infinity, NaN,
    ...repeat(600, latitude),
    ...repeat(150, () => uniform(-1e-8, 1e-8)),
    ...repeat(150, () => uniform(-2.4, 2.4)),
    ...repeat(100, () => Math.PI / 2 + uniform(-1e-10, 1e-10)),
    ...repeat(200, () => uniform(-60, 60)),
    ...repeat(150, () => Math.round(uniform(-40, 40)) * Math.PI / 2 + uniform(-1e-7, 1e-7)),
    ...repeat(150, () => uniform(-1.6e6, 1.6e6)),
    // The doubles next to n·π/2 lose about 53 bits to the first part of π/2, and most to the
    // second: the reduction's third step.
    ...repeat(100, (_, i) => (i + 1) * (Math.PI / 2)),
    ...repeat(100, () => Math.round(uniform(32, 1e6)) * (Math.PI / 2) * (random() < 0.5 ? -1 : 1)),
];
const log = [
    1, 2, 0.5, 0, -0, -1, Infinity, -Infinity, NaN, 5e-324, 2.2250738585072014e-308, Number.MAX_VALUE, Math.E,
    ...repeat(500, () => uniform(0, 4)),
    ...repeat(200, () => 1 + uniform(-2e-6, 2e-6)),
    ...repeat(200, () => 2 ** uniform(-1070, 1020)),
    ...repeat(100, () => 5e-324 * Math.floor(uniform(1, 1e6))),
    ...repeat(300, () => { const s = Math.sin(latitude()); return (1 + s) / (1 - s); }),
];
const exp = [
    0, -0, 1, -1, 0.5, 1e-300, 709.78, 709.7, -745.1, -745.2, 710, -746, Infinity, -Infinity, NaN,
    ...repeat(500, () => uniform(-Math.PI, Math.PI)),
    ...repeat(200, () => uniform(-745, 709.78)),
    ...repeat(100, () => uniform(-1e-8, 1e-8)),
    ...repeat(200, () => uniform(0.3, 1.1) * (random() < 0.5 ? -1 : 1)),
    ...repeat(100, () => uniform(-745.13, -708)),
];
const atan = [
    0, -0, 1, -1, 0.4375, 0.6875, 1.1875, 2.4375, 2 ** 66, -(2 ** 66), 1e-300, Infinity, -Infinity, NaN,
    ...repeat(600, () => Math.exp(uniform(-Math.PI, Math.PI))),
    ...repeat(300, () => uniform(-30, 30)),
    ...repeat(100, () => uniform(-1e-8, 1e-8)),
    ...repeat(200, () => 10 ** uniform(-10, 25) * (random() < 0.5 ? -1 : 1)),
];

const lines = ['# function argument result: the bits of each double in hex, node ' + process.version];
for (const [name, args, f] of [['sin', sin, Math.sin], ['log', log, Math.log], ['exp', exp, Math.exp],
    ['atan', atan, Math.atan]]) {
    for (const x of args) lines.push(`${name} ${bits(x)} ${bits(f(x))}`);
}
const out = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'Tests', 'fixtures', 'js-math', 'cases.txt');
writeFileSync(out, lines.join('\n') + '\n');
console.log(`${lines.length - 1} cases written to ${out}`);
