#!/usr/bin/env node
// Generates MapCore's number-format tables and test cases from the local node's Intl.NumberFormat
// (ECMA-402 over ICU), which MapLibre GL JS formats `number-format` with.
//
//   LC_ALL=en_US.UTF-8 node tools/number-format/generate.mjs          (about seven minutes)
//
// writes Sources/MapCore/Expression/Model/NumberFormatData.swift (the tables the shipped library
// reads; no ICU at run time) and Tests/fixtures/number-format/cases.jsonl (the expected outputs
// NumberFormatTests compares against). Options:
//   --full PATH    also write a much larger case file (every tag with Intl data, numbering
//                  systems, every currency and unit: about 1.2 million cases, 85 MB) for a one-off
//                  run: MAPCORE_NUMBER_FORMAT_CASES=PATH swift test --filter casesFromNodeIntl
//   --cache PATH   keep what was read from Intl in PATH and reuse it (while working on the script)
//   --only a,b     read and check only these tags; writes nothing
//   --no-verify    skip the model check (only with a cache that has passed it)
//
// Only data is taken from Intl: symbols, patterns, grouping, currency symbols and digits, unit
// patterns are read back from formatted outputs (formatToParts) and checked against a model of
// how MapCore puts them together (the same steps NumberFormat.swift takes); the script stops if
// any output of the locales it covers is not reproduced. Plural rules are CLDR's rule text
// (supplemental plurals.xml), checked against Intl.PluralRules. Written with node 20.20.2
// (V8 11.3, ICU 78.2, CLDR 48.0); another ICU or CLDR version may change the data, and the
// generated file names the versions it came from.

import fs from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const fullPath = args.includes('--full') ? args[args.indexOf('--full') + 1] : null;

function fail(message) {
    console.error('generate.mjs: ' + message);
    process.exit(1);
}

// The default locale decides what unknown tags format as; MapCore's default is English.
const defaultLocale = new Intl.NumberFormat().resolvedOptions().locale;
if (defaultLocale !== 'en-US') fail(`node's default locale is ${defaultLocale}; run with LC_ALL=en_US.UTF-8`);

// ---------------------------------------------------------------------------------------------
// Locales: the languages covered, every region and script ICU formats them for.

const LANGUAGES = [
    'en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'da', 'nb', 'no', 'nn', 'fi', 'pl', 'cs', 'ru', 'uk', 'tr',
    'el', 'ja', 'zh', 'ko', 'hi', 'ar', 'he', 'th', 'id', 'vi',
];
const SCRIPTS = ['Latn', 'Cyrl', 'Arab', 'Hans', 'Hant', 'Deva', 'Grek', 'Hebr', 'Thai', 'Jpan', 'Kore'];
const REGIONS = [];
for (const a of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') for (const b of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') REGIONS.push(a + b);
REGIONS.push('001', '150', '419');

const resolvedLocale = (tag) => new Intl.NumberFormat(tag).resolvedOptions().locale;
const isAvailable = (tag) => resolvedLocale(tag) === tag;

function availableTags() {
    const tags = [];
    for (const lang of LANGUAGES) {
        if (!isAvailable(lang)) fail(`${lang} is not available`);
        tags.push(lang);
        for (const script of SCRIPTS) {
            const ls = `${lang}-${script}`;
            if (!isAvailable(ls)) continue;
            tags.push(ls);
            for (const r of REGIONS) if (isAvailable(`${ls}-${r}`)) tags.push(`${ls}-${r}`);
        }
        for (const r of REGIONS) if (isAvailable(`${lang}-${r}`)) tags.push(`${lang}-${r}`);
    }
    // ICU's one locale of a variant, en-US-POSIX (which Intl names en-US-u-va-posix).
    if (resolvedLocale('en-US-POSIX') !== 'en-US-u-va-posix') fail('en-US-POSIX');
    tags.push('en-US-POSIX');
    return tags;
}

// ---------------------------------------------------------------------------------------------
// Plural rules: CLDR 48 supplemental/plurals.xml, cardinal, for the covered languages. Each rule
// set is checked against Intl.PluralRules below; e is the compact exponent (always 0 here).

const MANY_MILLION = 'e = 0 and i != 0 and i % 1000000 = 0 and v = 0 or e != 0..5';
const PLURAL_RULES = {
    other: {},
    one_i1v0: {one: 'i = 1 and v = 0'},
    one_n1: {one: 'n = 1'},
    da: {one: 'n = 1 or t != 0 and i = 0,1'},
    it: {one: 'i = 1 and v = 0', many: MANY_MILLION},
    es: {one: 'n = 1', many: MANY_MILLION},
    fr: {one: 'i = 0,1', many: MANY_MILLION},
    pt: {one: 'i = 0..1', many: MANY_MILLION},
    hi: {one: 'i = 0 or n = 1'},
    pl: {
        one: 'i = 1 and v = 0',
        few: 'v = 0 and i % 10 = 2..4 and i % 100 != 12..14',
        many: 'v = 0 and i != 1 and i % 10 = 0..1 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 12..14',
    },
    cs: {one: 'i = 1 and v = 0', few: 'i = 2..4 and v = 0', many: 'v != 0'},
    ru: {
        one: 'v = 0 and i % 10 = 1 and i % 100 != 11',
        few: 'v = 0 and i % 10 = 2..4 and i % 100 != 12..14',
        many: 'v = 0 and i % 10 = 0 or v = 0 and i % 10 = 5..9 or v = 0 and i % 100 = 11..14',
    },
    ar: {zero: 'n = 0', one: 'n = 1', two: 'n = 2', few: 'n % 100 = 3..10', many: 'n % 100 = 11..99'},
    he: {one: 'i = 1 and v = 0 or i = 0 and v != 0', two: 'i = 2 and v = 0'},
};
const CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];

// A rule as or-of-and-of relations: {operand, mod, negated, ranges: [[lo, hi]]}.
function parseRule(text) {
    return text.split(' or ').map((conj) =>
        conj.split(' and ').map((rel) => {
            const m = /^([nivfte])(?: % (\d+))? (=|!=) ([\d.,]+)$/.exec(rel.trim());
            if (!m) fail(`plural relation not understood: ${rel}`);
            const ranges = m[4].split(',').map((r) => {
                const [lo, hi] = r.split('..');
                return [Number(lo), Number(hi ?? lo)];
            });
            return {operand: m[1], mod: m[2] ? Number(m[2]) : null, negated: m[3] === '!=', ranges};
        })
    );
}
const PARSED_RULES = Object.fromEntries(
    Object.entries(PLURAL_RULES).map(([k, v]) => [k, Object.entries(v).map(([c, t]) => [c, parseRule(t)])])
);

// Operands of a plain decimal string ("12.50") as ICU computes them (doubles): n is the value,
// i the integer part modulo 10^18, f and t the fraction digits read while the value stays
// under 10^18 (t without trailing zeros), v the number of fraction digits shown.
function operands(text) {
    const [ip, fp = ''] = text.replace('-', '').split('.');
    let f = 0n;
    for (const ch of fp) {
        if (f > 10n ** 18n) break;
        f = f * 10n + BigInt(ch);
    }
    let t = f;
    while (t > 0n && t % 10n === 0n) t /= 10n;
    const i = Number(BigInt(ip) % 10n ** 18n);
    return {n: Math.abs(Number(text)), i, v: fp.length, f: Number(f), t: Number(t), e: 0};
}

// ICU's test of a relation: '=' and '!=' only hold for integral values, the modulo is fmod.
function relationHolds(rel, o) {
    let value = o[rel.operand];
    let inRange = false;
    if (value === Math.floor(value)) {
        if (rel.mod !== null) value %= rel.mod;
        inRange = rel.ranges.some(([lo, hi]) => value >= lo && value <= hi);
    }
    return rel.negated ? !inRange : inRange;
}

function pluralCategory(ruleName, text) {
    const o = operands(text);
    for (const [category, rule] of PARSED_RULES[ruleName]) {
        if (rule.some((conj) => conj.every((rel) => relationHolds(rel, o)))) return category;
    }
    return 'other';
}

const PLURAL_SAMPLES = [];
for (let k = 0; k <= 220; k++) PLURAL_SAMPLES.push([k, 0]);
const LARGE_SAMPLES = [1000, 1001, 1011, 1012, 1021, 1000000, 2000000, 1100000, 10000000, 1e15, 1e21, 2 ** 60, 1e300];
for (const k of [...LARGE_SAMPLES, 1.2345678901234568e20]) {
    PLURAL_SAMPLES.push([k, 0]);
}
for (const v of [1, 2, 3]) {
    for (let k = 0; k <= 130; k++) PLURAL_SAMPLES.push([k / 10 ** Math.min(v, 1) + (v > 1 ? 0.01 * (k % 7) : 0), v]);
    for (const k of [0, 1, 2, 3, 5, 11, 12, 21, 22, 25, 101, 111, 1000000]) PLURAL_SAMPLES.push([k, v]);
}

// The rule set name of a locale: the first that agrees with Intl.PluralRules on every sample.
function pluralRuleName(tag) {
    const checks = PLURAL_SAMPLES.map(([x, v]) => {
        const opts = {minimumFractionDigits: v, maximumFractionDigits: v};
        const {integer, fraction} = roundDigits(x, v, v);
        const text = integer + (fraction ? '.' + fraction : '');
        return [text, new Intl.PluralRules(tag, opts).select(x)];
    });
    for (const name of Object.keys(PLURAL_RULES)) {
        if (checks.every(([text, cat]) => pluralCategory(name, text) === cat)) return name;
    }
    fail(`no plural rule set matches ${tag}`);
}

// ---------------------------------------------------------------------------------------------
// Reading data back from Intl.

const nf = (tag, options) => new Intl.NumberFormat(tag, options);
const isSymbolOrSpace = (ch) => /[\p{S}\p{Z}]/u.test(ch);
const NUMBER_PARTS = new Set(['integer', 'group', 'decimal', 'fraction', 'nan', 'infinity']);

// A formatted output with its number as '#' and its currency as '¤' (the other parts kept).
function template(parts) {
    let out = '';
    for (const p of parts) {
        if (NUMBER_PARTS.has(p.type)) {
            if (!out.endsWith('#')) out += '#';
        } else if (p.type === 'currency') out += '¤';
        else {
            if (/[#¤{}|~\n]/.test(p.value)) fail(`literal ${JSON.stringify(p.value)} holds a reserved character`);
            out += p.value;
        }
    }
    return out;
}

// Symbols and grouping of the number itself in a style.
function numberShape(tag, options) {
    const parts = nf(tag, {...options, minimumFractionDigits: 1, maximumFractionDigits: 1}).formatToParts(
        1234567890.5
    );
    const ints = parts.filter((p) => p.type === 'integer').map((p) => p.value.length);
    const groups = new Set(parts.filter((p) => p.type === 'group').map((p) => p.value));
    const decimals = parts.filter((p) => p.type === 'decimal').map((p) => p.value);
    if (groups.size > 1 || decimals.length !== 1) fail(`${tag}: unexpected number parts`);
    const shape = {decimal: decimals[0], group: [...groups][0] ?? '', primary: 0, secondary: 0, minGrouping: 1};
    if (ints.length > 1) {
        shape.primary = ints[ints.length - 1];
        shape.secondary = ints.length > 2 ? ints[ints.length - 2] : shape.primary;
        for (shape.minGrouping = 1; shape.minGrouping < 5; shape.minGrouping++) {
            const x = 10 ** (shape.primary + shape.minGrouping - 1) + 0.5;
            const p = nf(tag, {...options, minimumFractionDigits: 1, maximumFractionDigits: 1}).formatToParts(x);
            if (p.some((q) => q.type === 'group')) break;
        }
    }
    return shape;
}

// The patterns of a currency in a locale: NaN and -Infinity show them as written (ICU's
// currency spacing, a no-break space between an alphabetic symbol and digits, needs digits).
function currencyPatterns(tag, code) {
    const f = nf(tag, {style: 'currency', currency: code, minimumFractionDigits: 1});
    const nan = f.formatToParts(NaN);
    const negative = f.formatToParts(-Infinity);
    const number = f.formatToParts(1234567.5);
    return {
        positive: template(nan),
        negative: template(negative),
        nanText: nan.map((p) => p.value).join(''),
        decimal: number.find((p) => p.type === 'decimal').value,
        group: number.find((p) => p.type === 'group')?.value ?? null,
        symbol: number.find((p) => p.type === 'currency').value,
    };
}

// The currency pattern most currencies use in a locale (some have their own); it is the one
// of unknown codes.
function commonCurrencyPattern(tag) {
    const votes = new Map();
    for (const code of [...CURRENCY_CODES, 'XYZ']) {
        const p = currencyPatterns(tag, code);
        const key = [p.positive, p.negative, p.decimal].join('|');
        if (!votes.has(key)) votes.set(key, []);
        votes.get(key).push(code);
    }
    const [key, codes] = [...votes.entries()].sort((a, b) => b[1].length - a[1].length)[0];
    const [positive, negative] = key.split('|');
    if (!codes.includes('XYZ')) fail(`${tag}: unknown codes do not follow the common pattern`);
    return {positive, negative, code: 'XYZ'};
}

function applyCurrency(template, symbol, body, finite) {
    const k = template.indexOf('¤');
    let sym = symbol;
    if (finite && template[k + 1] === '#' && !isSymbolOrSpace([...symbol].pop())) sym = symbol + '\u00a0';
    if (finite && template[k - 1] === '#' && !isSymbolOrSpace([...symbol][0])) sym = '\u00a0' + symbol;
    return template.replace('#', () => body).replace('¤', () => sym);
}

// The symbol of a currency in a locale, and its own patterns and separators where it has them
// (ICU's currency data can carry them: EUR in English of Czechia, Sweden, ... keeps "€1,234.50"
// while other currencies follow the region; PTE in Portuguese has "1234$50"). The symbol is
// what the output holds beyond the locale's pattern: ICU reports some symbols' trailing marks
// (RLM) as literals. Own negative patterns hold '~' for the minus sign of the numbering system.
function currencyData(tag, code, set, forceOwn = false) {
    const p = currencyPatterns(tag, code);
    const t = set.currencyPositive;
    const k = t.indexOf('¤');
    const n = t.indexOf('#');
    const out = p.nanText;
    let symbol = null;
    if (p.decimal === set.currency.decimal && (p.group ?? set.currency.group) === set.currency.group) {
        const [before, after] =
            k < n
                ? [t.slice(0, k), t.slice(k + 1).replace('#', set.nan)]
                : [t.slice(0, k).replace('#', set.nan), t.slice(k + 1)];
        if (out.startsWith(before) && out.endsWith(after) && out.length > before.length + after.length) {
            symbol = out.slice(before.length, out.length - after.length);
            const negative = p.negative.replace('#', set.infinity).replace('¤', p.symbol);
            if (applyCurrency(set.currencyNegative, symbol, set.infinity, false) !== negative) {
                symbol = null;
            }
        }
    }
    if (symbol !== null && !forceOwn) return {symbol, own: ''};
    const minus = set.decimalNegative.slice(0, -1);
    if (!p.negative.includes(minus)) fail(`${tag} ${code}: no minus sign in ${p.negative}`);
    const own = [p.positive, p.negative.replace(minus, '~'), p.decimal, p.group ?? set.currency.group];
    return {symbol: p.symbol, own: own.join('|')};
}

// The sample of each plural category of a locale (formatted with the default 0..3 digits).
function pluralSamples(tag) {
    const pr = new Intl.PluralRules(tag);
    const out = {};
    for (const x of [1, 2, 3, 5, 0, 11, 21, 100, 1000000, 1.5, 0.5, 101, 102, 111]) {
        const c = pr.select(x);
        if (!(c in out)) out[c] = x;
    }
    for (const c of pr.resolvedOptions().pluralCategories) if (!(c in out)) fail(`${tag}: no sample for ${c}`);
    return out;
}

// A unit's pattern per plural category: its output with the formatted number as {0} (some
// patterns, like Arabic "one", print no number).
function unitPatterns(tag, unit, samples) {
    const out = {};
    const f = nf(tag, {style: 'unit', unit});
    const d = decimalFormat(tag);
    for (const [cat, x] of Object.entries(samples)) {
        const text = f.format(x);
        const number = d.format(x);
        const k = text.indexOf(number);
        if (k >= 0 && text.indexOf(number, k + 1) >= 0) fail(`${tag} ${unit}: number twice`);
        const pattern = k < 0 ? text : text.slice(0, k) + '{0}' + text.slice(k + number.length);
        if (/[#¤|\n]/.test(pattern) || pattern.split('{0}').length > 2) fail(`${tag} ${unit}: pattern ${pattern}`);
        out[cat] = pattern;
    }
    return out;
}

const DECIMAL_FORMATS = new Map();
function decimalFormat(tag) {
    if (!DECIMAL_FORMATS.has(tag)) DECIMAL_FORMATS.set(tag, nf(tag));
    return DECIMAL_FORMATS.get(tag);
}

const UNITS = Intl.supportedValuesOf('unit');
const PER_REFERENCES = ['bit', 'byte'];

// Currency codes with data: every code ICU has a name for (current and historic), and the
// fraction digits of every well-formed code that differ from 2.
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALL_CODES = [];
for (const a of LETTERS) for (const b of LETTERS) for (const c of LETTERS) ALL_CODES.push(a + b + c);
const currencyNames = new Intl.DisplayNames('en', {type: 'currency', fallback: 'none'});
const CURRENCY_CODES = ALL_CODES.filter((c) => currencyNames.of(c) !== undefined);
const CURRENCY_DIGITS = {};
for (const c of ALL_CODES) {
    const d = nf('en', {style: 'currency', currency: c}).resolvedOptions().maximumFractionDigits;
    if (d !== 2) CURRENCY_DIGITS[c] = d;
}


// ---------------------------------------------------------------------------------------------
// Numbering systems: the digits of every one Intl accepts in `-u-nu-`. ICU formats with the
// locale's own symbols for its default system and for latn, arab and arabext (root has arab and
// arabext symbols); any other system takes the latn symbols with its digits.

const NUMBERING_SYSTEMS = Intl.supportedValuesOf('numberingSystem');
const DIGITS = {};
for (const nu of NUMBERING_SYSTEMS) {
    const d = Array.from({length: 10}, (_, k) => nf(`en-u-nu-${nu}`).format(k));
    if (d.some((x) => [...x].length !== 1) || nf(`en-u-nu-${nu}`).resolvedOptions().numberingSystem !== nu) {
        fail(`numbering system ${nu}`);
    }
    DIGITS[nu] = d.join('');
}
const OWN_SYMBOL_SYSTEMS = ['latn', 'arab', 'arabext'];

// The number symbols of a locale in a numbering system, as one record.
function readSymbols(tag) {
    const ro = nf(tag).resolvedOptions();
    const common = commonCurrencyPattern(tag);
    const cur = {style: 'currency', currency: common.code};
    const asLiteral = (p) => (p.type === 'unit' ? {type: 'literal', value: p.value} : p);
    const percent = nf(tag, {style: 'unit', unit: 'percent'});
    if (nf(tag).formatToParts(-1).at(-1).type !== 'integer') fail(`${tag}: minus sign after the number`);
    return {
        nu: ro.numberingSystem,
        decimal: numberShape(tag, {}),
        currency: numberShape(tag, cur),
        percent: numberShape(tag, {style: 'unit', unit: 'percent'}),
        decimalPositive: template(nf(tag).formatToParts(1234.5)),
        decimalNegative: template(nf(tag).formatToParts(-1234.5)),
        currencyPositive: common.positive,
        currencyNegative: common.negative,
        percentPositive: template(percent.formatToParts(5).map(asLiteral)),
        percentNegative: template(percent.formatToParts(-5).map(asLiteral)),
        nan: nf(tag).formatToParts(NaN).find((p) => p.type === 'nan').value,
        infinity: nf(tag).formatToParts(Infinity).find((p) => p.type === 'infinity').value,
    };
}
const symbolsKey = (s) =>
    [
        s.nu, s.decimal.decimal, s.decimal.group, s.decimal.primary, s.decimal.secondary, s.decimal.minGrouping,
        s.currency.decimal, s.currency.group, s.currency.primary, s.currency.secondary, s.currency.minGrouping,
        s.percent.decimal, s.percent.group, s.percent.primary, s.percent.secondary, s.percent.minGrouping,
        s.decimalPositive, s.decimalNegative, s.currencyPositive, s.currencyNegative, s.percentPositive,
        s.percentNegative, s.nan, s.infinity,
    ].join('|');

// ---------------------------------------------------------------------------------------------
// One locale as flat items (key -> text), which the tables store as differences from a parent.

const SYMBOL_SETS = new Map(); // symbolsKey -> id
function symbolSetId(s) {
    const key = symbolsKey(s);
    if (!SYMBOL_SETS.has(key)) SYMBOL_SETS.set(key, SYMBOL_SETS.size);
    return String(SYMBOL_SETS.get(key));
}

const RULE_NAMES = Object.keys(PLURAL_RULES);
const categoryIndex = (c) => CATEGORIES.indexOf(c);

// Patterns per category as "<category index><pattern>|...", categories equal to "other" left out.
function encodePatterns(patterns) {
    const other = patterns.other;
    const parts = [`5${other}`];
    for (const [c, p] of Object.entries(patterns)) {
        if (c !== 'other' && p !== other) parts.push(`${categoryIndex(c)}${p}`);
    }
    return parts.sort().join('|');
}
function decodePatterns(text) {
    const out = {};
    for (const part of text.split('|')) out[CATEGORIES[Number(part[0])]] = part.slice(1);
    return out;
}

function splitCompound(unit) {
    const k = unit.indexOf('-per-');
    return k < 0 ? null : [unit.slice(0, k), unit.slice(k + 5)];
}

function readItems(tag) {
    const items = {};
    const ro = nf(tag).resolvedOptions();
    const set = readSymbols(tag);
    items.sym = symbolSetId(set);
    const otherSystems = [];
    for (const nu of [...OWN_SYMBOL_SYSTEMS, 'thai']) {
        if (nu === ro.numberingSystem) continue;
        const t = `${tag}-u-nu-${nu}`;
        if (nf(t).resolvedOptions().numberingSystem !== nu) fail(`${t} not accepted`);
        const other = readSymbols(t);
        otherSystems.push([t, other]);
        // Other systems: read with Thai digits, kept as latn (the formatter puts the digits in).
        if (nu === 'thai') items['sym:other'] = symbolSetId({...other, nu: 'latn'});
        else items[`sym:${nu}`] = symbolSetId(other);
    }
    const rule = pluralRuleName(tag);
    items.plural = String(RULE_NAMES.indexOf(rule));
    // A currency has its own patterns when it does not follow the locale's in some numbering
    // system (TRY in Turkish keeps "₺1.234,50" with Arabic digits too); they are read in the
    // default system, the minus sign left to the system's.
    for (const c of CURRENCY_CODES) {
        let d = currencyData(tag, c, set);
        if (d.own === '' && otherSystems.some(([t, other]) => currencyData(t, c, other).own !== '')) {
            d = currencyData(tag, c, set, true);
        }
        items[`cs:${c}`] = d.symbol;
        items[`cd:${c}`] = d.own;
    }
    const samples = pluralSamples(tag);
    const units = {};
    for (const u of UNITS) if (u !== 'percent') units[u] = unitPatterns(tag, u, samples);
    for (const [u, p] of Object.entries(units)) items[`u:${u}`] = encodePatterns(p);
    // Per-patterns of denominators: "{0}/h"; most are the locale's compound pattern ("{0}/{1}")
    // with the unit's name (its pattern without the number), which the tables store once.
    const per = {};
    for (const y of UNITS) {
        const found = PER_REFERENCES.map((x) => {
            const text = nf(tag, {style: 'unit', unit: `${x}-per-${y}`}).format(5);
            const inner = nf(tag, {style: 'unit', unit: x}).format(5);
            const k = text.indexOf(inner);
            return k < 0 ? null : text.slice(0, k) + '{0}' + text.slice(k + inner.length);
        });
        if (found[0] === null || found[0] !== found[1]) fail(`${tag}: per-pattern of ${y}: ${found}`);
        per[y] = found[0];
    }
    const votes = {};
    for (const y of UNITS) {
        if (y === 'percent') continue;
        const name = unitName(units[y]);
        const k = per[y].lastIndexOf(name);
        if (k < 0 || name === '') continue;
        const candidate = per[y].slice(0, k) + '{1}' + per[y].slice(k + name.length);
        votes[candidate] = (votes[candidate] ?? 0) + 1;
    }
    items.per = Object.entries(votes).sort((a, b) => b[1] - a[1])[0][0];
    for (const y of UNITS) {
        const composes = y !== 'percent' && items.per.replace('{1}', unitName(units[y])) === per[y];
        items[`p:${y}`] = composes ? '' : per[y];
    }
    const percentFormat = nf(tag, {style: 'unit', unit: 'percent'});
    // Compound units the composition does not give (CLDR's own kilometer-per-hour, ...).
    for (const x of UNITS) {
        for (const y of UNITS) {
            const u = `${x}-per-${y}`;
            const direct = unitPatterns(tag, u, samples);
            if (x === 'percent') {
                // ICU formats percent-per-anything as a percentage.
                const plain = percentFormat.format(5).replace(decimalFormat(tag).format(5), '{0}');
                if (Object.values(direct).every((p) => p === plain)) continue;
            }
            const composed = composeCompound(items, x, y, samples);
            if (composed === null || Object.keys(direct).some((c) => direct[c] !== composed[c])) {
                items[`u:${u}`] = encodePatterns(direct);
            }
        }
    }
    return items;
}

// A unit's name for the compound pattern: its singular pattern without the number, trimmed.
function unitName(patterns) {
    return (patterns.one ?? patterns.other).replace('{0}', '').trim();
}

// The patterns of X-per-Y from the items, as NumberFormat.swift composes them; null when the
// composition needs something the items do not have.
function composeCompound(items, x, y, samples) {
    if (x === 'percent') return null;
    const ux = items[`u:${x}`];
    const uy = items[`u:${y}`];
    if (ux === undefined) return null;
    const perY = items[`p:${y}`] || (uy === undefined ? null : items.per.replace('{1}', unitName(decodePatterns(uy))));
    if (perY === null) return null;
    const px = decodePatterns(ux);
    const out = {};
    for (const c of Object.keys(samples)) out[c] = perY.replace('{0}', px[c] ?? px.other);
    return out;
}

// ---------------------------------------------------------------------------------------------
// Locale canonicalization data Intl applies before matching (UTS 35 aliases), for the aliases
// that lead to a covered language or region.

function aliasTables(tags) {
    const languages = {};
    const two = [];
    for (const a of LETTERS) for (const b of LETTERS) two.push((a + b).toLowerCase());
    for (const code of [...two, ...ALL_CODES.map((c) => c.toLowerCase())]) {
        let canon;
        try {
            canon = Intl.getCanonicalLocales(code)[0];
        } catch {
            continue;
        }
        if (canon === code) continue;
        const lang = canon.split('-')[0];
        if (LANGUAGES.includes(lang)) languages[code] = canon;
    }
    const regionsInTags = new Set(tags.map((t) => t.split('-').pop()).filter((r) => /^([A-Z]{2}|\d{3})$/.test(r)));
    const regions = {};
    const numeric = [];
    for (let k = 0; k < 1000; k++) numeric.push(String(k).padStart(3, '0'));
    for (const r of [...REGIONS.filter((x) => x.length === 2), ...numeric]) {
        const canonical = (l) => Intl.getCanonicalLocales(`${l}-${r}`)[0].split('-')[1];
        const targets = new Set(['en', 'ru', 'zh', 'ar'].map(canonical));
        if (targets.size !== 1) continue; // depends on the language: not taken
        const target = [...targets][0];
        if (target !== r && regionsInTags.has(target)) regions[r] = target;
    }
    return {languages, regions};
}

// ---------------------------------------------------------------------------------------------
// Tables as differences: each locale names a parent (an earlier locale, or none) and stores the
// items whose value differs from what the parent chain gives; locales equal to the locale their
// tag falls back to (en-US to en) are left out.

function buildTables(tags, itemsOf) {
    // Default currency symbols: the most common symbol per code among the languages.
    const rootSymbols = {};
    for (const c of CURRENCY_CODES) {
        const votes = {};
        for (const lang of LANGUAGES.filter((l) => itemsOf[l])) {
            const s = itemsOf[lang][`cs:${c}`];
            votes[s] = (votes[s] ?? 0) + 1;
        }
        const best = Object.entries(votes).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0];
        if (best !== c) rootSymbols[c] = best;
    }
    const root = {};
    for (const c of CURRENCY_CODES) {
        root[`cs:${c}`] = rootSymbols[c] ?? c;
        root[`cd:${c}`] = '';
    }
    const kept = []; // {tag, parent, own, resolved}
    const byTag = new Map();
    const depth = (t) => t.split('-').length;
    const order = [...tags].sort((a, b) => depth(a) - depth(b) || tags.indexOf(a) - tags.indexOf(b));
    const valueOf = (entry, key) => (entry ? entry.resolved[key] : root[key]);
    for (const tag of order) {
        const items = itemsOf[tag];
        // The locale the tag falls back to when left out.
        let fallback = null;
        for (let t = tag; t.includes('-') && !fallback; ) {
            t = t.slice(0, t.lastIndexOf('-'));
            fallback = byTag.get(t) ?? null;
        }
        if (fallback && Object.keys(items).every((k) => fallback.resolved[k] === items[k])) {
            const compoundsEqual = Object.keys(fallback.resolved).every(
                (k) =>
                    !k.includes('-per-') ||
                    items[k] === fallback.resolved[k] ||
                    (items[k] === undefined && fallback.resolved[k] === '')
            );
            if (compoundsEqual) continue;
        }
        let best = null;
        for (const parent of [null, ...kept]) {
            const own = {};
            let cost = 0;
            for (const [k, v] of Object.entries(items)) {
                if (valueOf(parent, k) !== v) {
                    own[k] = v;
                    cost += k.length + v.length + 2;
                }
            }
            // Compounds the parent chain overrides and this locale composes: '' = compose.
            if (parent) {
                for (const k of Object.keys(parent.resolved)) {
                    if (k.includes('-per-') && items[k] === undefined && parent.resolved[k] !== '') {
                        own[k] = '';
                        cost += k.length + 2;
                    }
                }
            }
            if (!best || cost < best.cost) best = {parent, own, cost};
        }
        const resolved = {...(best.parent ? best.parent.resolved : root), ...best.own};
        const entry = {tag, parent: best.parent ? best.parent.tag : '', own: best.own, resolved};
        kept.push(entry);
        byTag.set(tag, entry);
    }
    return {rootSymbols, kept};
}

// The data as text: one record a line, fields split by '|'. NumberFormat.swift parses this.
function dataText(tables, aliases) {
    const lines = [];
    // Systems whose digits are not decimal digits (Nd) get no currency spacing: marked '-'.
    for (const nu of NUMBERING_SYSTEMS) lines.push(`N|${nu}|${DIGITS[nu]}${/\p{Nd}/u.test(DIGITS[nu]) ? '' : '|-'}`);
    // The characters at either end of a currency symbol that are symbols or spaces (\p{S}, \p{Z}),
    // next to which ICU puts no currency spacing.
    const edges = new Set();
    for (const e of tables.kept) {
        for (const [k, v] of Object.entries(e.own)) {
            if (!k.startsWith('cs:') || v === '') continue;
            for (const ch of [[...v][0], [...v].at(-1)]) if (isSymbolOrSpace(ch)) edges.add(ch);
        }
    }
    for (const v of Object.values(tables.rootSymbols)) {
        for (const ch of [[...v][0], [...v].at(-1)]) if (isSymbolOrSpace(ch)) edges.add(ch);
    }
    lines.push('E|' + [...edges].sort().join(''));
    lines.push('K|' + Object.entries(CURRENCY_DIGITS).map(([c, d]) => `${c}${d}`).join('|'));
    for (const key of SYMBOL_SETS.keys()) lines.push(`Y|${key}`);
    lines.push('U|' + UNITS.join('|'));
    lines.push('$|' + Object.entries(tables.rootSymbols).flat().join('|'));
    lines.push('A|' + Object.entries(aliases.languages).flat().join('|'));
    lines.push('G|' + Object.entries(aliases.regions).flat().join('|'));
    for (const e of tables.kept) {
        lines.push(`L|${e.tag}|${e.parent}`);
        const own = Object.entries(e.own).sort(([a], [b]) => (a < b ? -1 : 1));
        const symbols = own.filter(([k]) => k.startsWith('cs:'));
        if (symbols.length) lines.push('c|' + symbols.map(([k, v]) => `${k.slice(3)}|${v}`).join('|'));
        for (const [k, v] of own) {
            if (k === 'sym') lines.push(`s|${v}`);
            else if (k.startsWith('sym:')) lines.push(`s|${v}|${k.slice(4)}`);
            else if (k === 'plural') lines.push(`r|${v}`);
            else if (k === 'per') lines.push(`P|${v}`);
            else if (k.startsWith('p:')) lines.push(`p|${k.slice(2)}|${v}`);
            else if (k.startsWith('u:')) lines.push(`u|${k.slice(2)}|${v}`);
            else if (k.startsWith('cd:')) lines.push(`d|${k.slice(3)}|${v}`);
            else if (!k.startsWith('cs:')) fail(`item ${k}`);
        }
    }
    for (const l of lines) if (l.includes('\n') || l.includes('\\')) fail(`line ${l}`);
    return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// The model: what NumberFormat.swift computes from the data text, written again here so the
// tables are checked against Intl before they are written.

function parseData(text) {
    const data = {
        digits: {}, notDecimal: new Set(), edges: new Set(), currencyDigits: {}, sets: [], units: [], rootSymbols: {},
        locales: new Map(),
    };
    let current = null;
    for (const line of text.split('\n')) {
        const f = line.split('|');
        switch (f[0]) {
            case 'N': data.digits[f[1]] = [...f[2]]; if (f[3] === '-') data.notDecimal.add(f[1]); break;
            case 'E': data.edges = new Set([...f[1]]); break;
            case 'K': for (const x of f.slice(1)) data.currencyDigits[x.slice(0, 3)] = Number(x.slice(3)); break;
            case 'Y': {
                const shape = (k) => ({
                    decimal: f[k], group: f[k + 1], primary: +f[k + 2], secondary: +f[k + 3], minGrouping: +f[k + 4],
                });
                data.sets.push({
                    nu: f[1], decimal: shape(2), currency: shape(7), percent: shape(12), decimalPositive: f[17],
                    decimalNegative: f[18], currencyPositive: f[19], currencyNegative: f[20], percentPositive: f[21],
                    percentNegative: f[22], nan: f[23], infinity: f[24],
                });
                break;
            }
            case 'U': data.units = f.slice(1); break;
            case '$': for (let k = 1; k < f.length; k += 2) data.rootSymbols[f[k]] = f[k + 1]; break;
            case 'A': case 'G': break;
            case 'L': {
                current = {tag: f[1], parent: f[2] ? data.locales.get(f[2].toLowerCase()) : null, items: new Map()};
                data.locales.set(f[1].toLowerCase(), current);
                break;
            }
            case 'c': for (let k = 1; k < f.length; k += 2) current.items.set(`cs:${f[k]}`, f[k + 1]); break;
            case 's': current.items.set(f[2] ? `sym:${f[2]}` : 'sym', f[1]); break;
            case 'r': current.items.set('plural', f[1]); break;
            case 'P': current.items.set('per', f.slice(1).join('|')); break;
            case 'p': current.items.set(`p:${f[1]}`, f.slice(2).join('|')); break;
            case 'u': current.items.set(`u:${f[1]}`, f.slice(2).join('|')); break;
            case 'd': current.items.set(`cd:${f[1]}`, f.slice(2).join('|')); break;
            default: fail(`record ${f[0]}`);
        }
    }
    return data;
}

function itemOf(locale, key) {
    for (let r = locale, depth = 0; r && depth < 64; r = r.parent, depth++) {
        if (r.items.has(key)) return r.items.get(key);
    }
    return undefined;
}

function lookup(data, tag) {
    let t = tag.toLowerCase();
    for (;;) {
        if (data.locales.has(t)) return data.locales.get(t);
        const k = t.lastIndexOf('-');
        if (k < 0) return data.locales.get('en');
        t = t.slice(0, k);
    }
}

class RangeErrorModel extends Error {}

// Decimal digits of |value| (finite): JavaScript's shortest round-trip digits, which ICU uses.
function shortestDigits(a) {
    if (a === 0) return {digits: '', point: 0};
    const s = a.toString();
    let mantissa = s;
    let exponent = 0;
    const e = s.indexOf('e');
    if (e >= 0) {
        mantissa = s.slice(0, e);
        exponent = Number(s.slice(e + 1));
    }
    const dot = mantissa.indexOf('.');
    const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
    let digits = intPart + (dot < 0 ? '' : mantissa.slice(dot + 1));
    let point = intPart.length + exponent;
    while (digits.startsWith('0')) {
        digits = digits.slice(1);
        point--;
    }
    return {digits: digits.replace(/0+$/, ''), point};
}

// Rounds half away from zero ("halfExpand") to `maxFraction` digits; returns integer and
// fraction digit strings (fraction padded to minFraction).
function roundDigits(a, minFraction, maxFraction) {
    let {digits, point} = shortestDigits(a);
    const keep = point + maxFraction;
    if (digits.length > keep) {
        if (keep < 0) digits = '';
        else {
            const up = digits[keep] >= '5';
            digits = digits.slice(0, keep);
            if (up) {
                let k = digits.length - 1;
                while (k >= 0 && digits[k] === '9') k--;
                if (k < 0) {
                    digits = '1';
                    point += 1;
                } else digits = digits.slice(0, k) + String(Number(digits[k]) + 1);
            }
            digits = digits.replace(/0+$/, '');
        }
    }
    if (digits === '') return {integer: '0', fraction: '0'.repeat(minFraction)};
    let integer = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
    let fraction = point >= 0 ? digits.slice(point) : '0'.repeat(-point) + digits;
    fraction = fraction.padEnd(minFraction, '0');
    return {integer, fraction};
}

function groupDigits(integer, shape) {
    if (shape.primary === 0 || integer.length - shape.primary < shape.minGrouping) return [integer];
    const groups = [integer.slice(integer.length - shape.primary)];
    let end = integer.length - shape.primary;
    while (end > 0) {
        groups.unshift(integer.slice(Math.max(0, end - shape.secondary), end));
        end -= shape.secondary;
    }
    return groups;
}

const UNIT_ERROR = (u) => `Invalid unit argument for Intl.NumberFormat() '${u}'`;
const CURRENCY_ERROR = (c) => `Invalid currency code : ${c}`;

function digitOption(value, name) {
    if (value === undefined) return undefined;
    if (Number.isNaN(value) || value < 0 || value > 20) throw new RangeErrorModel(`${name} value is out of range.`);
    return Math.floor(value);
}

function modelFormat(data, locale, nu, options, value) {
    const {currency, unit} = options;
    let code = null;
    if (currency !== undefined) {
        if (!/^[A-Za-z]{3}$/.test(currency)) throw new RangeErrorModel(CURRENCY_ERROR(currency));
        code = currency.toUpperCase();
    }
    let compound = null;
    if (code === null && unit !== undefined) {
        const parts = splitCompound(unit);
        const ok = parts ? parts.every((p) => data.units.includes(p)) : data.units.includes(unit);
        if (!ok) throw new RangeErrorModel(UNIT_ERROR(unit));
        compound = parts;
    }
    const cDigits = code === null ? null : data.currencyDigits[code] ?? 2;
    const minDefault = cDigits ?? 0;
    const maxDefault = cDigits ?? 3;
    let minF = digitOption(options.min, 'minimumFractionDigits');
    let maxF = digitOption(options.max, 'maximumFractionDigits');
    if (minF === undefined && maxF === undefined) {
        minF = minDefault;
        maxF = maxDefault;
    } else if (minF === undefined) minF = Math.min(minDefault, maxF);
    else if (maxF === undefined) maxF = Math.max(maxDefault, minF);
    else if (minF > maxF) throw new RangeErrorModel('maximumFractionDigits value is out of range.');

    let set = data.sets[Number(itemOf(locale, 'sym'))];
    let system = set.nu;
    if (nu && nu !== set.nu) {
        set = data.sets[Number(itemOf(locale, OWN_SYMBOL_SYSTEMS.includes(nu) ? `sym:${nu}` : 'sym:other'))];
        system = nu;
    }
    const digits = data.digits[system];
    const isPercent = code === null && unit !== undefined && (compound ? compound[0] : unit) === 'percent';
    let shape = code !== null ? set.currency : isPercent ? set.percent : set.decimal;
    let currencyPositive = set.currencyPositive;
    let currencyNegative = set.currencyNegative;
    const own = code !== null ? itemOf(locale, `cd:${code}`) : '';
    if (own) {
        let decimal, group;
        [currencyPositive, currencyNegative, decimal, group] = own.split('|');
        currencyNegative = currencyNegative.replace('~', set.decimalNegative.slice(0, -1));
        shape = {...shape, decimal, group};
    }
    const negative = value < 0 || Object.is(value, -0);
    let body;
    let finite = false;
    let plainText = null; // the rounded value as plain ASCII digits, for plural operands
    if (Number.isNaN(value)) body = set.nan;
    else if (!Number.isFinite(value)) body = set.infinity;
    else {
        finite = true;
        const {integer, fraction} = roundDigits(Math.abs(value), minF, maxF);
        plainText = integer + (fraction ? '.' + fraction : '');
        const local = (s) => [...s].map((ch) => digits[ch.charCodeAt(0) - 48]).join('');
        body = groupDigits(integer, shape).map(local).join(shape.group);
        if (fraction) body += shape.decimal + local(fraction);
    }
    const isNegative = negative && !Number.isNaN(value);
    let out;
    if (code !== null) {
        const symbol = itemOf(locale, `cs:${code}`) ?? data.rootSymbols[code] ?? code;
        const spaced = finite && !data.notDecimal.has(system);
        out = applyCurrencyModel(data, isNegative ? currencyNegative : currencyPositive, symbol, body, spaced);
    } else if (isPercent) {
        out = (isNegative ? set.percentNegative : set.percentPositive).replace('#', () => body);
    } else {
        out = (isNegative ? set.decimalNegative : set.decimalPositive).replace('#', () => body);
        if (unit !== undefined) {
            const rule = RULE_NAMES[Number(itemOf(locale, 'plural'))];
            const category = plainText === null ? 'other' : pluralCategory(rule, plainText);
            out = unitPattern(data, locale, unit, compound, category).replace('{0}', () => out);
        }
    }
    return out;
}

function applyCurrencyModel(data, template, symbol, body, spaced) {
    const k = template.indexOf('¤');
    let sym = symbol;
    if (spaced && template[k + 1] === '#' && !data.edges.has([...symbol].pop())) sym = symbol + '\u00a0';
    if (spaced && template[k - 1] === '#' && !data.edges.has([...symbol][0])) sym = '\u00a0' + symbol;
    return template.replace('#', () => body).replace('¤', () => sym);
}

function patternsOf(locale, unit) {
    const text = itemOf(locale, `u:${unit}`);
    return text ? decodePatterns(text) : null;
}

function unitPattern(data, locale, unit, compound, category) {
    const own = patternsOf(locale, unit);
    const pick = (p) => p[category] ?? p.other;
    if (own) return pick(own);
    const [x, y] = compound;
    const perY = itemOf(locale, `p:${y}`) || itemOf(locale, 'per').replace('{1}', unitName(patternsOf(locale, y)));
    return perY.replace('{0}', () => pick(patternsOf(locale, x)));
}

// ---------------------------------------------------------------------------------------------
// Checking the model against Intl.

// GL JS's call (maplibre-style-spec src/expression/definitions/number_format.ts).
function intlFormat(locale, options, value) {
    try {
        return {
            output: new Intl.NumberFormat(locale === undefined ? [] : locale, {
                style: options.currency !== undefined ? 'currency' : options.unit !== undefined ? 'unit' : 'decimal',
                currency: options.currency,
                unit: options.unit,
                minimumFractionDigits: options.min,
                maximumFractionDigits: options.max,
            }).format(value),
        };
    } catch (e) {
        if (!(e instanceof RangeError)) throw e;
        return {error: e.message};
    }
}

function modelResult(data, locale, nu, options, value) {
    try {
        return {output: modelFormat(data, locale, nu, options, value)};
    } catch (e) {
        if (!(e instanceof RangeErrorModel)) throw e;
        return {error: e.message};
    }
}

const CHECK_VALUES = [
    0, -0, 1, -1, 2, 1.5, 0.125, 0.5, 2.5, -2.5, 1000, 1234.5, -1234.5, 10000, 12345.678, 1234567.891, -9876.54321,
    1e21, 1e-7, -0.0001, 123456789012345680000, 2 ** 60, 1.7976931348623157e308, 5e-324, 0.1 + 0.2, 1.005, 999.9995,
    NaN, Infinity, -Infinity,
];
const CHECK_OPTIONS = [{}, {max: 0}, {min: 2, max: 2}, {max: 20}, {min: 20}, {min: 1}, {min: 3, max: 2}, {max: 21}];

function verify(data, tags) {
    let checked = 0;
    const failures = [];
    const check = (tag, nu, options, value) => {
        const t = nu ? `${tag}-u-nu-${nu}` : tag;
        const want = intlFormat(t, options, value);
        const got = modelResult(data, lookup(data, tag), nu, options, value);
        checked++;
        if (want.output !== got.output || want.error !== got.error) {
            const what = `${t} ${JSON.stringify(options)} ${value}`;
            failures.push(`${what}: Intl ${JSON.stringify(want)} model ${JSON.stringify(got)}`);
        }
    };
    for (const tag of tags) {
        for (const nu of [null, 'latn', 'arab', 'arabext', 'thai', 'deva', 'hanidec', 'fullwide']) {
            if (['deva', 'hanidec', 'fullwide'].includes(nu)) {
                for (const v of CHECK_VALUES) check(tag, nu, {}, v);
                for (const c of ['EUR', 'USD', 'XYZ']) check(tag, nu, {currency: c}, -1234.5);
                check(tag, nu, {unit: 'percent'}, -1234.5);
                continue;
            }
            for (const o of CHECK_OPTIONS) for (const v of CHECK_VALUES) check(tag, nu, o, v);
            const codes = nu === 'arab' || nu === 'arabext' ? CURRENCY_CODES : ['EUR', 'USD', 'PTE', 'CZK'];
            for (const c of codes) for (const v of [1234.5, -1234.5]) check(tag, nu, {currency: c}, v);
            for (const v of [1000000, -1234567.5]) check(tag, nu, {unit: 'percent'}, v);
            if (nu && nu !== 'thai') continue;
            for (const c of CURRENCY_CODES) for (const v of [1234.5, -1234.5]) check(tag, nu, {currency: c}, v);
            for (const c of ['XYZ', 'usd', 'chf', 'Eur', 'QQQ', 'US', 'EURO', 'U$D', '']) {
                for (const v of [1, -0, NaN, -Infinity]) check(tag, nu, {currency: c}, v);
            }
            for (const u of UNITS) {
                for (const v of [0, 1, -1, 2, 3, 5, 11, 21, 100, 1000000, 1.5, 0.5, 101, 1e21, NaN, Infinity]) {
                    check(tag, nu, {unit: u}, v);
                }
                check(tag, nu, {unit: u, min: 1}, 1);
            }
            const compounds = [
                'kilometer-per-hour', 'meter-per-second', 'byte-per-day', 'percent-per-hour', 'day-per-hour',
                'mile-per-gallon', 'liter-per-kilometer', 'celsius-per-degree', 'hour-per-percent',
            ];
            for (const u of compounds) {
                for (const v of [1, 2, 5, -1.5, 22, 1000000]) check(tag, nu, {unit: u}, v);
            }
            for (const u of INVALID_UNITS) check(tag, nu, {unit: u}, 1);
        }
    }
    return {checked, failures};
}

// ---------------------------------------------------------------------------------------------
// The Swift file.

const VERSIONS = `node ${process.versions.node} (V8 ${process.versions.v8}, ICU ${process.versions.icu}, ` +
    `CLDR ${process.versions.cldr}, Unicode ${process.versions.unicode})`;

// A data line as Swift source: invisible characters as \u{...}, wrapped with the multi-line
// literal's line continuation.
function swiftLines(line, indent) {
    const pieces = [];
    for (const ch of line) {
        if (ch === '\\' || ch === '"') fail(`character ${ch} in data`);
        const invisible = /[\p{Cf}\p{Cc}\p{Z}]/u.test(ch) && ch !== ' ';
        pieces.push(invisible ? `\\u{${ch.codePointAt(0).toString(16).toUpperCase()}}` : ch);
    }
    const width = 120 - indent.length - 1;
    const out = [];
    let current = '';
    let length = 0;
    for (const piece of pieces) {
        const n = [...piece].length;
        if (length + n > width) {
            out.push(indent + current + '\\');
            current = '';
            length = 0;
        }
        current += piece;
        length += n;
    }
    out.push(indent + current);
    return out;
}

function swiftRelation(rel) {
    const operand = rel.operand === 'e' ? '0' : `o.${rel.operand}`;
    const terms = rel.ranges.map(([lo, hi]) => `r(${operand}, ${rel.mod ?? 0}, ${lo}, ${hi})`);
    const any = terms.length === 1 ? terms[0] : `(${terms.join(' || ')})`;
    return rel.negated ? `!${any}` : any;
}

function swiftPluralFunction() {
    const lines = [];
    lines.push('    /// CLDR plural rules (cardinal), by the number locales name them with:');
    RULE_NAMES.forEach((name, k) => {
        const text = Object.entries(PLURAL_RULES[name]).map(([c, t]) => `${c}: ${t}`).join('; ') || 'other only';
        const head = `    /// ${k} ${name}: `;
        let line = head;
        for (const word of text.split(' ')) {
            if ((line + word).length > 119) {
                lines.push(line.trimEnd());
                line = '    ///     ';
            }
            line += word + ' ';
        }
        lines.push(line.trimEnd());
    });
    lines.push('    static func pluralCategory(rule: Int, _ o: PluralOperands) -> PluralCategory {');
    lines.push('        let r = PluralOperands.holds');
    lines.push('        switch rule {');
    RULE_NAMES.forEach((name, k) => {
        const rules = PARSED_RULES[name];
        if (rules.length === 0) return;
        lines.push(`        case ${k}:`);
        for (const [category, rule] of rules) {
            const condition = rule.map((conj) => conj.map(swiftRelation).join(' && ')).join(' || ');
            const stmt = `            if ${condition} { return .${category} }`;
            if (stmt.length <= 120) lines.push(stmt);
            else {
                const parts = rule.map((conj) => conj.map(swiftRelation).join(' && '));
                lines.push(`            if ${parts[0]}`);
                for (const part of parts.slice(1)) lines.push(`                || ${part}`);
                lines.push(`            {`);
                lines.push(`                return .${category}`);
                lines.push(`            }`);
            }
        }
    });
    lines.push('        default: break');
    lines.push('        }');
    lines.push('        return .other');
    lines.push('    }');
    return lines;
}

function swiftFile(text) {
    const out = [
        '// Expression: the number-format tables, generated: do not edit.',
        '//',
        `// Generated by tools/number-format/generate.mjs from the Intl.NumberFormat of`,
        `// ${VERSIONS}:`,
        '//   LC_ALL=en_US.UTF-8 node tools/number-format/generate.mjs',
        '// Symbols, patterns, currency symbols and digits, unit patterns are read back from Intl\'s',
        '// outputs (CLDR data as ICU formats it); plural rules are CLDR\'s (supplemental plurals.xml),',
        '// checked against Intl.PluralRules. NumberFormatTables.swift reads the text; its records:',
        '//   N|system|digits                numbering systems',
        '//   K|CODEdigits|...               currency fraction digits other than 2',
        '//   Y|system|decimal|group|primary|secondary|min grouping (decimal, currency, percent)|patterns',
        '//     (decimal +/-, currency +/-, percent +/-; # the number, ¤ the symbol)|NaN|infinity',
        '//   U|unit|...                     the units Intl accepts ("X-per-Y" of two of them too)',
        '//   $|CODE|symbol|...              default currency symbols (else the code)',
        '//   A|alias|language|...  G|alias|region|...   canonicalization aliases (UTS 35)',
        '//   L|tag|parent                   a locale; its records below override the parent\'s:',
        '//     s|set[|system]  r|plural rule  c|CODE|symbol|...  d|CODE|+pattern|-pattern|decimal|group',
        '//     u|unit|patterns (category digit 0 zero ... 5 other, then the pattern; "" = composed)',
        '//     P|compound pattern ({0}/{1})  p|unit|per-unit pattern ("" = compound pattern)',
        '',
        'enum NumberFormatData {',
        '    static let text = """',
    ];
    for (const line of text.split('\n')) out.push(...swiftLines(line, '        '));
    out.push('        """');
    out.push('');
    out.push(...swiftPluralFunction());
    out.push('}');
    out.push('');
    return out.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Test cases: GL JS's call on the local node; NumberFormatTests runs each through number-format.

// Values as JSON: numbers, or "NaN", "Infinity", "-Infinity", "-0".
const jsonValue = (v) =>
    v === undefined ? null : Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : Number.isFinite(v) ? v : String(v);

function caseLine(locale, options, value) {
    const r = intlFormat(locale, options, value);
    return JSON.stringify([
        locale ?? null, options.currency ?? null, options.unit ?? null, jsonValue(options.min), jsonValue(options.max),
        jsonValue(value), r.output ?? null, r.error ?? null,
    ]);
}

// The locales of the style-spec suite and GL JS's tests get the whole grid; the other common
// ones a part of it. undefined is GL JS's default ([]: the runtime's locale; MapCore's is en).
const SUITE_LOCALES = [undefined, 'de', 'dk', 'en', 'en-US', 'fr', 'sv'];
const COMMON_LOCALES = [
    'en-GB', 'en-IN', 'en-AU', 'en-CA', 'de-DE', 'de-AT', 'de-CH', 'fr-FR', 'fr-CA', 'fr-CH', 'es', 'es-ES', 'es-MX',
    'es-419', 'it', 'pt', 'pt-BR', 'pt-PT', 'nl', 'da', 'nb', 'no', 'fi', 'pl', 'cs', 'ru', 'uk', 'tr', 'el', 'ja',
    'zh', 'zh-CN', 'zh-TW', 'zh-HK', 'ko', 'hi', 'ar', 'ar-EG', 'he', 'th', 'id', 'vi',
];
const GRID_VALUES = [
    0, -0, 1, 1.5, 2, 0.125, 1234.5, 1234567.891, -9876.54321, 1e21, 1e-7, 123456789012345680000, NaN, -Infinity,
];
const GRID_DIGITS = [{}, {min: 0, max: 0}, {min: 2, max: 2}, {max: 20}, {min: 20, max: 20}];
const GRID_CURRENCIES = ['USD', 'EUR', 'JPY', 'GBP', 'CHF', 'BHD', 'INR', 'CNY', 'BRL', 'XYZ', 'usd'];
const GRID_UNITS = [
    'meter', 'kilometer-per-hour', 'celsius', 'kilobyte', 'day', 'hour', 'percent', 'liter', 'mile-per-gallon',
    'byte-per-day', 'week', 'day-per-hour',
];
const ODD_TAGS = [
    'EN-us', 'en_US', '', 'x-foo', 'root', 'und', 'und-TW', 'iw', 'in-ID', 'nb-NO', 'no-NO', 'zh-Hant-TW', 'zh-hant-tw',
    'ZH-tw', 'zh-Hans-HK', 'zh-Hant', 'zh-Latn', 'es-ES-valencia', 'de-CH-1996', 'de-DE-u-co-phonebk',
    'ar-EG-u-nu-latn',
    'ar-u-nu-arab', 'en-u-nu-thai', 'hi-u-nu-deva', 'ja-u-nu-fullwide', 'ja-JP-u-nu-hanidec', 'en-u-nu-xyz',
    'en-US-u-nu-latn-nu-arab', 'en-u-nu', 'de-u-nu-arabext', 'fr-u-nu-beng', 'en-x-priv', 'en-a-bbb', 'en-gb-oed',
    'i-klingon', 'zh-min-nan', 'en-US-POSIX', 'en-US-u-va-posix', 'en-POSIX', 'en-GB-posix', 'en-US-u-va-posix-nu-thai',
    'eng', 'deu', 'fra-CA', 'en-UK', 'de-DD', 'en-840', 'es-XX', 'pt-Latn-BR',
    'en-Latn-US', 'de--DE', 'de-', '-de', 'de-DE-', 'en-u', 'en-u-ca', 'en-a', 'en-x', 'en-US-x-twain', 'en-1234',
    'en-12345', 'en-US-variant-variant', 'en-a-aaa-a-bbb', 'en-t-de', 'en-t-de-DE-u-nu-thai', 'en-u-attr-nu-arab',
    'abcdefghi', 'a', 'en-Latn-Latn', 'en-US-US', 'iw-IL', 'de-AT-u-cu-usd', 'zh-TW-u-nu-hant', 'en-é',
    'de-a-', 'de--', 'de-DE--',
    'en-u-nu-latn-x-nu-arab', 'EN-GB-U-NU-ARAB',
];

const INVALID_UNITS = [
    'Meter', 'meters', 'liter-per-100-kilometer', 'meter-per-second-per-hour', 'per', 'x-per-y', 'meter-per-',
    '-per-meter', '',
];
// A spread of compound units: the k-th unit over another.
const compoundUnit = (k) => `${UNITS[k % UNITS.length]}-per-${UNITS[(k * 7 + 3) % UNITS.length]}`;

function gridCases() {
    const lines = [];
    for (const locale of SUITE_LOCALES) {
        for (const v of GRID_VALUES) for (const o of GRID_DIGITS) lines.push(caseLine(locale, o, v));
        lines.push(caseLine(locale, {min: 3, max: 1}, 1.5));
        for (const c of GRID_CURRENCIES) {
            for (const v of [1234.5, -1234.5, -0, 0.5]) lines.push(caseLine(locale, {currency: c}, v));
        }
        lines.push(caseLine(locale, {currency: 'CHF'}, NaN));
        for (const u of GRID_UNITS) {
            for (const v of [1, 2, 5, 1.5, -1234.5, 1000000]) lines.push(caseLine(locale, {unit: u}, v));
        }
    }
    for (const locale of COMMON_LOCALES) {
        for (const v of GRID_VALUES) lines.push(caseLine(locale, {}, v));
        for (const v of [1234567.891, -0.0001, 1e21]) {
            for (const o of GRID_DIGITS.slice(1)) lines.push(caseLine(locale, o, v));
        }
        for (const c of GRID_CURRENCIES) for (const v of [-1234.5, 0.5]) lines.push(caseLine(locale, {currency: c}, v));
        for (const u of GRID_UNITS) for (const v of [1, 2, -1234.5]) lines.push(caseLine(locale, {unit: u}, v));
        for (const v of [0, 3, 5, 11, 21, 22, 101, 1000000]) lines.push(caseLine(locale, {unit: 'day'}, v));
    }
    // The style-spec suite's number-format cases.
    lines.push(caseLine('en-US', {min: 15, max: 20}, 987654321.234567));
    lines.push(caseLine('en-US', {min: 2, max: 4}, 987654321.234567));
    for (const unit of ['meter', 'celsius', 'kilobyte']) lines.push(caseLine('en-US', {unit}, 1234.567));
    for (const currency of ['JPY', 'EUR']) lines.push(caseLine('en-US', {currency}, 123456.789));
    lines.push(caseLine(undefined, {}, 123456.789));
    for (const tag of ODD_TAGS) for (const o of [{}, {currency: 'EUR'}]) lines.push(caseLine(tag, o, -1234567.891));
    // Fraction digits beyond the grid, as GL JS passes them from data.
    const digitOptions = [
        {min: NaN}, {max: NaN}, {min: Infinity}, {max: -Infinity}, {min: -1}, {max: -0.5}, {min: -0}, {max: 20.5},
        {min: 21}, {max: 21}, {min: 0.5}, {max: 19.99}, {min: 20}, {max: 0}, {min: 5}, {max: 1}, {min: 1e300},
        {min: 2, max: 2.5}, {min: 3, max: 2}, {min: 2, max: 3},
    ];
    for (const o of digitOptions) {
        for (const extra of [{}, {currency: 'JPY'}, {currency: 'BHD'}, {currency: 'USD'}, {unit: 'day'}]) {
            lines.push(caseLine('en', {...o, ...extra}, 1.23456));
        }
    }
    // Values near rounding edges and at the ends of Double.
    const edgeValues = [
        2 ** 53, 2 ** 53 + 2, 2 ** 60, 2 ** 64, 1.7976931348623157e308, 5e-324, -5e-324, 0.1 + 0.2, 1.005, 2.675,
        999.9995, 9.9999, 0.05, 0.95, 1e-20, 5e-21, 4.9e-21, 1e15 + 0.5, 123.456e-10, -0.0004, 0.0005,
    ];
    for (const v of edgeValues) {
        for (const o of [{}, {max: 0}, {max: 2}, {max: 20}, {min: 20}]) lines.push(caseLine('en', o, v));
        lines.push(caseLine('de', {max: 20}, v));
        lines.push(caseLine('ar', {unit: 'day', max: 20}, v));
    }
    // Every unit, simple and a spread of compounds, in a few locales.
    for (const locale of ['en', 'ar', 'pl']) {
        for (const u of UNITS) for (const v of [1, 2]) lines.push(caseLine(locale, {unit: u}, v));
        for (let k = 0; k < UNITS.length; k++) lines.push(caseLine(locale, {unit: compoundUnit(k)}, 2));
    }
    for (const u of INVALID_UNITS) lines.push(caseLine('en', {unit: u}, 1));
    // Every currency code with data, in a few locales; codes outside the table; ill-formed codes.
    for (const locale of ['en', 'ar']) {
        for (const c of CURRENCY_CODES) lines.push(caseLine(locale, {currency: c}, -1234.5));
    }
    for (const locale of ['en-CZ', 'pt-PT', 'nl', 'de-CH', 'ja']) {
        for (const c of ['EUR', 'USD', 'PTE', 'CZK', 'JPY', 'XXX', 'TRY']) {
            lines.push(caseLine(locale, {currency: c}, -1234.5));
        }
    }
    for (const c of ['QQQ', 'zzz', 'Eur', 'US', 'EURO', 'U$D', '', 'E1R', ' EU']) {
        lines.push(caseLine('en', {currency: c}, 1));
    }
    return lines;
}

// --full: every locale tag with Intl data, every currency and unit, numbering systems.
function fullCases(tags) {
    const lines = [];
    for (const tag of tags) {
        for (const nu of [null, 'arab', 'thai', 'hanidec']) {
            const t = nu ? `${tag}-u-nu-${nu}` : tag;
            for (const v of GRID_VALUES) for (const o of GRID_DIGITS) lines.push(caseLine(t, o, v));
            for (const c of CURRENCY_CODES) lines.push(caseLine(t, {currency: c}, -1234.5));
            for (const u of UNITS) for (const v of [1, 2, 5, 11, 0.5, 1000000]) lines.push(caseLine(t, {unit: u}, v));
            for (let k = 0; k < UNITS.length * 5; k++) {
                lines.push(caseLine(t, {unit: compoundUnit(k)}, 2));
            }
        }
    }
    return lines;
}

const CASES_HEADER = () =>
    JSON.stringify({
        source: 'tools/number-format/generate.mjs: new Intl.NumberFormat(locale ?? [], {style, currency, unit, ' +
            'minimumFractionDigits: min, maximumFractionDigits: max}).format(value), as GL JS calls it',
        versions: VERSIONS,
        fields: ['locale', 'currency', 'unit', 'min', 'max', 'value', 'output', 'error'],
    });

// ---------------------------------------------------------------------------------------------
// Main.

function main() {
    const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
    let tags = availableTags();
    if (only) tags = tags.filter((t) => only.includes(t));
    // --cache PATH keeps what was read from Intl between runs while the script is worked on.
    const cachePath = args.includes('--cache') ? args[args.indexOf('--cache') + 1] : null;
    let itemsOf = {};
    if (cachePath && fs.existsSync(cachePath)) {
        const cached = JSON.parse(fs.readFileSync(cachePath, 'utf8'));
        itemsOf = cached.itemsOf;
        for (const key of cached.symbolSets) SYMBOL_SETS.set(key, SYMBOL_SETS.size);
    }
    const started = Date.now();
    const missing = tags.filter((t) => !itemsOf[t]);
    for (const tag of missing) itemsOf[tag] = readItems(tag);
    console.error(`read ${missing.length} locales in ${Date.now() - started} ms`);
    if (cachePath && missing.length) {
        fs.writeFileSync(cachePath, JSON.stringify({itemsOf, symbolSets: [...SYMBOL_SETS.keys()]}));
    }
    const tables = buildTables(tags, itemsOf);
    const aliases = aliasTables(tags);
    const text = dataText(tables, aliases);
    const size = Buffer.byteLength(text);
    console.error(`${tables.kept.length} locales kept, ${SYMBOL_SETS.size} symbol sets, data ${size} bytes`);
    if (!args.includes('--no-verify')) {
        const data = parseData(text);
        const {checked, failures} = verify(data, tags);
        console.error(`model: ${checked} outputs checked against Intl, ${failures.length} differ`);
        const byTag = {};
        for (const f of failures) byTag[f.split(' ')[0]] = (byTag[f.split(' ')[0]] ?? 0) + 1;
        if (failures.length) console.error(JSON.stringify(byTag));
        for (const f of failures.slice(0, 40)) console.error('  ' + f);
        if (failures.length) process.exit(1);
    }
    if (only) return; // a partial run writes nothing
    const swift = swiftFile(text);
    const swiftPath = path.join(root, 'Sources/MapCore/Expression/Model/NumberFormatData.swift');
    fs.writeFileSync(swiftPath, swift);
    console.error(`wrote ${path.relative(root, swiftPath)} (${Buffer.byteLength(swift)} bytes)`);
    const cases = [CASES_HEADER(), ...gridCases()];
    const casesPath = path.join(root, 'Tests/fixtures/number-format/cases.jsonl');
    fs.mkdirSync(path.dirname(casesPath), {recursive: true});
    fs.writeFileSync(casesPath, cases.join('\n') + '\n');
    console.error(`wrote ${path.relative(root, casesPath)} (${cases.length - 1} cases)`);
    if (fullPath) {
        const full = [CASES_HEADER(), ...gridCases(), ...fullCases(tags)];
        fs.writeFileSync(fullPath, full.join('\n') + '\n');
        console.error(`wrote ${fullPath} (${full.length - 1} cases)`);
    }
}

main();
