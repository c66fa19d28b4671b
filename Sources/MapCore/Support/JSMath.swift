// Support: JavaScript's Math.sin, Math.log, Math.exp and Math.atan as V8 computes them (node, where
// geojson-vt's and supercluster's own tests run, and so the tiles and clusters MapCore reproduces).
//
// Why not C's: V8 computes these with fdlibm's algorithms (its `base::ieee754`), glibc with its
// own, and the two differ in the last bit of 3-10% of results (measured against node 20 over
// 200,000 arguments each; newer V8 takes some of these from LLVM's libc: this is node 20's V8).
// A last bit of a projected position changes geojson-vt's line metrics, and can change a
// rounded tile coordinate, a Douglas-Peucker tie or a cluster's latitude; so the modes that
// reproduce geojson-vt and supercluster JS project with these, and the modes that reproduce
// geojson-vt-cpp and supercluster-cpp (MapLibre Native, built against C's libm) with C's.
//
// Each function follows fdlibm's algorithm step for step (argument reduction, the polynomial and
// the order of its sums), since any other order rounds otherwise; the constants are fdlibm's,
// with the bits they stand for beside them. Tests hold node's answers for arguments that reach
// every branch (`Tests/fixtures/js-math`, written by `tools/js-math/generate.mjs`). Swift does
// not contract `a * b + c` into a fused multiply-add, which would round otherwise.

import Glibc

enum JSMath {
    // MARK: sin

    /// `Math.sin`. Arguments beyond about 2^20 · π/2 (high word 0x413921FB; latitudes beyond 94
    /// million degrees) take C's `sin`: fdlibm reduces those with a multi-word 2/π (Payne-Hanek),
    /// not reproduced here. (fdlibm's own comment says 2^19; its constant says 2^20.)
    static func sin(_ x: Double) -> Double {
        let ix = high(x) & 0x7fff_ffff
        if ix <= 0x3fe9_21fb { return kernelSin(x, 0, odd: false) }  // |x| <= π/4
        if ix >= 0x7ff0_0000 { return x - x }  // NaN or an infinity: NaN
        guard let (n, y0, y1) = reduced(x) else { return Glibc.sin(x) }
        switch n & 3 {
        case 0: return kernelSin(y0, y1, odd: true)
        case 1: return kernelCos(y0, y1)
        case 2: return -kernelSin(y0, y1, odd: true)
        default: return -kernelCos(y0, y1)
        }
    }

    /// sin on [-π/4, π/4] of x + y (y the tail of a reduced argument; `odd`: whether y counts).
    @inline(__always) private static func kernelSin(_ x: Double, _ y: Double, odd: Bool) -> Double {
        let s1 = -1.666_666_666_666_663_243_48e-01  // 0xBFC55555 55555549
        let s2 = 8.333_333_333_322_489_461_24e-03  // 0x3F811111 1110F8A6
        let s3 = -1.984_126_982_985_794_931_34e-04  // 0xBF2A01A0 19C161D5
        let s4 = 2.755_731_370_707_006_767_89e-06  // 0x3EC71DE3 57B1FE7D
        let s5 = -2.505_076_025_340_686_341_95e-08  // 0xBE5AE5E6 8A2B9CEB
        let s6 = 1.589_690_995_211_550_102_21e-10  // 0x3DE5D93A 5ACFD57C
        if high(x) & 0x7fff_ffff < 0x3e40_0000 { return x }  // |x| < 2^-27
        let z = x * x, v = z * x
        let r = s2 + z * (s3 + z * (s4 + z * (s5 + z * s6)))
        if !odd { return x + v * (s1 + z * r) }
        return x - ((z * (0.5 * y - v * r) - y) - v * s1)
    }

    /// cos on [-π/4, π/4] of x + y.
    @inline(__always) private static func kernelCos(_ x: Double, _ y: Double) -> Double {
        let c1 = 4.166_666_666_666_660_190_37e-02  // 0x3FA55555 5555554C
        let c2 = -1.388_888_888_887_410_957_49e-03  // 0xBF56C16C 16C15177
        let c3 = 2.480_158_728_947_672_941_78e-05  // 0x3EFA01A0 19CB1590
        let c4 = -2.755_731_435_139_066_330_35e-07  // 0xBE927E4F 809C52AD
        let c5 = 2.087_572_321_298_174_827_90e-09  // 0x3E21EE9E BDB4B1C4
        let c6 = -1.135_964_755_778_819_482_65e-11  // 0xBDA8FAE9 BE8838D4
        let ix = high(x) & 0x7fff_ffff
        if ix < 0x3e40_0000 { return 1 }  // |x| < 2^-27
        let z = x * x
        let r = z * (c1 + z * (c2 + z * (c3 + z * (c4 + z * (c5 + z * c6)))))
        if ix < 0x3fd3_3333 { return 1 - (0.5 * z - (z * r - x * y)) }  // |x| < 0.3
        // 1 - z/2 as (1 - q) - (z/2 - q), q about x²/4, so that the subtraction loses no bits.
        let q = ix > 0x3fe9_0000 ? 0.28125 : words(ix - 0x0020_0000, 0)
        let hz = 0.5 * z - q
        return (1 - q) - (hz - (z * r - x * y))
    }

    /// x - n·π/2 as y0 + y1 with n mod 4, for |x| > π/4 up to about 2^20 · π/2 (nil beyond), with π/2
    /// in three parts of 33 bits and their tails, a part more when the first cancels.
    private static func reduced(_ x: Double) -> (Int, Double, Double)? {
        let pio2_1 = 1.570_796_326_734_125_614_17e+00  // 0x3FF921FB 54400000: π/2's first 33 bits
        let pio2_1t = 6.077_100_506_506_192_249_32e-11  // 0x3DD0B461 1A626331: π/2 - pio2_1
        let pio2_2 = 6.077_100_506_303_965_976_60e-11  // 0x3DD0B461 1A600000: its next 33 bits
        let pio2_2t = 2.022_266_248_795_950_631_54e-21  // 0x3BA3198A 2E037073
        let pio2_3 = 2.022_266_248_711_166_455_80e-21  // 0x3BA3198A 2E000000: the next 33 bits
        let pio2_3t = 8.478_427_660_368_899_569_97e-32  // 0x397B839A 252049C1
        let invpio2 = 6.366_197_723_675_813_824_33e-01  // 0x3FE45F30 6DC9C883: 2/π
        let hx = high(x), ix = hx & 0x7fff_ffff
        if ix < 0x4002_d97c {
            // |x| < 3π/4: n is ±1; next to π/2 itself the second part is taken too.
            let sign = hx > 0 ? 1.0 : -1.0
            var z = x - sign * pio2_1
            if ix != 0x3ff9_21fb {
                let y0 = z - sign * pio2_1t
                return (hx > 0 ? 1 : -1, y0, (z - y0) - sign * pio2_1t)
            }
            z -= sign * pio2_2
            let y0 = z - sign * pio2_2t
            return (hx > 0 ? 1 : -1, y0, (z - y0) - sign * pio2_2t)
        }
        guard ix <= 0x4139_21fb else { return nil }
        let t = abs(x)
        let n = Int(t * invpio2 + 0.5)
        let fn = Double(n)
        var r = t - fn * pio2_1
        var w = fn * pio2_1t
        var y0 = r - w
        // Next to a multiple of π/2 (the same high word as n·π/2 for n < 32, any n above) the
        // first part may cancel: the exponent lost tells whether to take the next part, and the
        // one after.
        if n >= 32 || ix == nearMultiples[n - 1] {
            let j = ix >> 20
            /// Bits lost to cancellation so far.
            func lost() -> Int32 { j - ((high(y0) >> 20) & 0x7ff) }
            /// The next part of π/2 and its tail taken away as well.
            func subtract(_ part: Double, _ tail: Double) {
                let t = r
                w = fn * part
                r = t - w
                w = fn * tail - ((t - r) - w)
                y0 = r - w
            }
            if lost() > 16 {
                subtract(pio2_2, pio2_2t)
                if lost() > 49 { subtract(pio2_3, pio2_3t) }
            }
        }
        let y1 = (r - y0) - w
        return hx < 0 ? (-n, -y0, -y1) : (n, y0, y1)
    }

    /// The high words of n·π/2 for n = 1...32, as fdlibm tabulates them.
    private static let nearMultiples: [Int32] = [
        0x3FF9_21FB, 0x4009_21FB, 0x4012_D97C, 0x4019_21FB, 0x401F_6A7A, 0x4022_D97C, 0x4025_FDBB, 0x4029_21FB,
        0x402C_463A, 0x402F_6A7A, 0x4031_475C, 0x4032_D97C, 0x4034_6B9C, 0x4035_FDBB, 0x4037_8FDB, 0x4039_21FB,
        0x403A_B41B, 0x403C_463A, 0x403D_D85A, 0x403F_6A7A, 0x4040_7E4C, 0x4041_475C, 0x4042_106C, 0x4042_D97C,
        0x4043_A28C, 0x4044_6B9C, 0x4045_34AC, 0x4045_FDBB, 0x4046_C6CB, 0x4047_8FDB, 0x4048_58EB, 0x4049_21FB,
    ]

    // MARK: log

    /// `Math.log`: x = 2^k · (1 + f) with 1 + f in [√2/2, √2), log(1 + f) from s = f / (2 + f).
    static func log(_ x: Double) -> Double {
        let ln2Hi = 6.931_471_803_691_238_164_90e-01  // 0x3FE62E42 FEE00000
        let ln2Lo = 1.908_214_929_270_587_700_02e-10  // 0x3DEA39EF 35793C76
        let lg1 = 6.666_666_666_666_735_130e-01  // 0x3FE55555 55555593
        let lg2 = 3.999_999_999_940_941_908e-01  // 0x3FD99999 9997FA04
        let lg3 = 2.857_142_874_366_239_149e-01  // 0x3FD24924 94229359
        let lg4 = 2.222_219_843_214_978_396e-01  // 0x3FCC71C5 1D8E78AF
        let lg5 = 1.818_357_216_161_805_012e-01  // 0x3FC74664 96CB03DE
        let lg6 = 1.531_383_769_920_937_332e-01  // 0x3FC39A09 D078C69F
        let lg7 = 1.479_819_860_511_658_591e-01  // 0x3FC2F112 DF3E5244
        var x = x
        var hx = high(x)
        var k: Int32 = 0
        if hx < 0x0010_0000 {  // below 2^-1022: zero, negative or subnormal
            if x == 0 { return -.infinity }
            if hx < 0 { return .nan }
            k -= 54
            x *= 1.801_439_850_948_198_400_00e+16  // 2^54: now normal
            hx = high(x)
        }
        if hx >= 0x7ff0_0000 { return x + x }  // +∞ or NaN
        k += (hx >> 20) - 1023
        hx &= 0x000f_ffff
        let i = (hx + 0x95f64) & 0x10_0000
        x = withHigh(x, hx | (i ^ 0x3ff0_0000))  // x or x/2, so that 1 + f lies in [√2/2, √2)
        k += i >> 20
        let f = x - 1
        let dk = Double(k)
        if (0x000f_ffff & (2 + hx)) < 3 {  // |f| < 2^-20
            if f == 0 { return k == 0 ? 0 : dk * ln2Hi + dk * ln2Lo }
            let r = f * f * (0.5 - 0.333_333_333_333_333_33 * f)
            return k == 0 ? f - r : dk * ln2Hi - ((r - dk * ln2Lo) - f)
        }
        let s = f / (2 + f)
        let z = s * s
        let w = z * z
        let t1 = w * (lg2 + w * (lg4 + w * lg6))
        let t2 = z * (lg1 + w * (lg3 + w * (lg5 + w * lg7)))
        let r = t2 + t1
        if ((hx - 0x6147a) | (0x6b851 - hx)) > 0 {  // a mantissa within about [1.38, 1.42]
            let hfsq = 0.5 * f * f
            if k == 0 { return f - (hfsq - s * (hfsq + r)) }
            return dk * ln2Hi - ((hfsq - (s * (hfsq + r) + dk * ln2Lo)) - f)
        }
        if k == 0 { return f - s * (f - r) }
        return dk * ln2Hi - ((s * (f - r) - dk * ln2Lo) - f)
    }

    // MARK: exp

    /// `Math.exp`: x = k·ln2 + r with |r| <= ln2/2, e^r from a rational form, times 2^k. V8 answers
    /// exp(1) with its own E (fdlibm's steps give the last bit otherwise).
    static func exp(_ x: Double) -> Double {
        let ln2Hi = 6.931_471_803_691_238_164_90e-01  // 0x3FE62E42 FEE00000
        let ln2Lo = 1.908_214_929_270_587_700_02e-10  // 0x3DEA39EF 35793C76
        let invln2 = 1.442_695_040_888_963_387_00e+00  // 0x3FF71547 652B82FE
        let p1 = 1.666_666_666_666_660_190_37e-01  // 0x3FC55555 5555553E
        let p2 = -2.777_777_777_701_559_338_42e-03  // 0xBF66C16C 16BEBD93
        let p3 = 6.613_756_321_437_934_361_17e-05  // 0x3F11566A AF25DE2C
        let p4 = -1.653_390_220_546_525_153_90e-06  // 0xBEBBBD41 C5D26BF1
        let p5 = 4.138_136_797_057_238_460_39e-08  // 0x3E663769 72BEA4D0
        let hx = high(x), ix = hx & 0x7fff_ffff
        let negative = hx < 0
        if ix >= 0x4086_2e42 {  // |x| >= 709.78: overflow, underflow, ∞ or NaN
            if x.isNaN { return x + x }
            if x == .infinity { return x }
            if x == -.infinity { return 0 }
            if x > 7.097_827_128_933_839_730_96e+02 { return .infinity }
            if x < -7.451_332_191_019_411_084_20e+02 { return 0 }
        }
        var k = 0, hi = 0.0, lo = 0.0, x = x
        if ix > 0x3fd6_2e42 {  // |x| > ln2/2
            if ix < 0x3ff0_a2b2 {  // and < 3·ln2/2: k is ±1
                if x == 1 { return 2.718_281_828_459_045 }
                hi = x - (negative ? -ln2Hi : ln2Hi)
                lo = negative ? -ln2Lo : ln2Lo
                k = negative ? -1 : 1
            } else {
                k = Int(invln2 * x + (negative ? -0.5 : 0.5))
                let t = Double(k)
                hi = x - t * ln2Hi  // exact: t·ln2Hi has few bits
                lo = t * ln2Lo
            }
            x = hi - lo
        } else if ix < 0x3e30_0000 {  // |x| < 2^-28
            return 1 + x
        }
        let t = x * x
        let c = x - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))))
        if k == 0 { return 1 - ((x * c) / (c - 2) - x) }
        let y = 1 - ((lo - (x * c) / (2 - c)) - hi)
        if k >= -1021 {
            return k == 1024 ? y * 2 * 0x1p1023 : y * powerOfTwo(k)
        }
        return y * powerOfTwo(k + 1000) * 0x1p-1000
    }

    // MARK: atan

    /// `Math.atan`: |x| reduced to one of five intervals around 0, 0.5, 1, 1.5 and ∞, whose atan is
    /// tabulated in two parts, then an odd polynomial of degree 23.
    static func atan(_ x: Double) -> Double {
        let hx = high(x), ix = hx & 0x7fff_ffff
        if ix >= 0x4410_0000 {  // |x| >= 2^66, or NaN
            if x.isNaN { return x + x }
            return hx > 0 ? atanHi[3] + atanLo[3] : -atanHi[3] - atanLo[3]
        }
        var x = x
        var id = -1
        if ix < 0x3fdc_0000 {  // |x| < 0.4375
            if ix < 0x3e40_0000 { return x }  // |x| < 2^-27
        } else {
            x = abs(x)
            if ix < 0x3ff3_0000 {  // |x| < 1.1875
                if ix < 0x3fe6_0000 {  // 7/16 <= |x| < 11/16
                    id = 0
                    x = (2 * x - 1) / (2 + x)
                } else {  // 11/16 <= |x| < 19/16
                    id = 1
                    x = (x - 1) / (x + 1)
                }
            } else if ix < 0x4003_8000 {  // |x| < 2.4375
                id = 2
                x = (x - 1.5) / (1 + 1.5 * x)
            } else {  // 2.4375 <= |x| < 2^66
                id = 3
                x = -1 / x
            }
        }
        let z = x * x, w = z * z
        // The series' odd and even terms apart.
        let s1 = z * (aT[0] + w * (aT[2] + w * (aT[4] + w * (aT[6] + w * (aT[8] + w * aT[10])))))
        let s2 = w * (aT[1] + w * (aT[3] + w * (aT[5] + w * (aT[7] + w * aT[9]))))
        if id < 0 { return x - x * (s1 + s2) }
        let r = atanHi[id] - ((x * (s1 + s2) - atanLo[id]) - x)
        return hx < 0 ? -r : r
    }

    /// atan of 0.5, 1, 1.5 and ∞, in a high and a low part.
    private static let atanHi: [Double] = [
        4.636_476_090_008_060_935_15e-01,  // 0x3FDDAC67 0561BB4F
        7.853_981_633_974_482_789_99e-01,  // 0x3FE921FB 54442D18
        9.827_937_232_473_290_540_82e-01,  // 0x3FEF730B D281F69B
        1.570_796_326_794_896_558_00e+00,  // 0x3FF921FB 54442D18
    ]
    private static let atanLo: [Double] = [
        2.269_877_745_296_168_709_24e-17,  // 0x3C7A2B7F 222F65E2
        3.061_616_997_868_383_017_93e-17,  // 0x3C81A626 33145C07
        1.390_331_103_123_099_845_16e-17,  // 0x3C700788 7AF0CBBD
        6.123_233_995_736_766_035_87e-17,  // 0x3C91A626 33145C07
    ]
    private static let aT: [Double] = [
        3.333_333_333_333_293_180_27e-01,  // 0x3FD55555 5555550D
        -1.999_999_999_987_648_324_76e-01,  // 0xBFC99999 9998EBC4
        1.428_571_427_250_346_637_11e-01,  // 0x3FC24924 920083FF
        -1.111_111_040_546_235_578_80e-01,  // 0xBFBC71C6 FE231671
        9.090_887_133_436_506_561_96e-02,  // 0x3FB745CD C54C206E
        -7.691_876_205_044_829_994_95e-02,  // 0xBFB3B0F2 AF749A6D
        6.661_073_137_387_531_206_69e-02,  // 0x3FB10D66 A0D03D51
        -5.833_570_133_790_573_486_45e-02,  // 0xBFADDE2D 52DEFD9A
        4.976_877_994_615_932_360_17e-02,  // 0x3FA97B4B 24760DEB
        -3.653_157_274_421_691_552_70e-02,  // 0xBFA2B444 2C6A6C2F
        1.628_582_011_536_578_236_23e-02,  // 0x3F90AD3A E322DA11
    ]

    // MARK: words

    /// The high 32 bits of x, signed, as fdlibm reads them.
    @inline(__always) private static func high(_ x: Double) -> Int32 {
        Int32(truncatingIfNeeded: Int64(bitPattern: x.bitPattern) >> 32)
    }

    /// A double from its high and low words.
    @inline(__always) private static func words(_ high: Int32, _ low: UInt32) -> Double {
        Double(bitPattern: UInt64(UInt32(bitPattern: high)) << 32 | UInt64(low))
    }

    /// x with its high word replaced.
    @inline(__always) private static func withHigh(_ x: Double, _ high: Int32) -> Double {
        words(high, UInt32(truncatingIfNeeded: x.bitPattern))
    }

    /// 2^k for -1022 <= k <= 1023.
    @inline(__always) private static func powerOfTwo(_ k: Int) -> Double {
        Double(bitPattern: UInt64(truncatingIfNeeded: 0x3ff + k) << 52)
    }
}
