// GeoJSON: the RFC 7946 model, with every geometry's coordinates in flat contiguous storage.

/// The seven RFC 7946 geometry types. Raw values are the C ABI's `MC_GEOMETRY_*` constants.
public enum GeometryType: Int32, CaseIterable, Sendable {
    case point = 1, multiPoint, lineString, multiLineString, polygon, multiPolygon, geometryCollection

    /// The name used in GeoJSON's "type" member.
    public var name: String { staticName.description }

    var staticName: StaticString {
        switch self {
        case .point: return "Point"
        case .multiPoint: return "MultiPoint"
        case .lineString: return "LineString"
        case .multiLineString: return "MultiLineString"
        case .polygon: return "Polygon"
        case .multiPolygon: return "MultiPolygon"
        case .geometryCollection: return "GeometryCollection"
        }
    }

    public init?(name: String) {
        guard let t = GeometryType.allCases.first(where: { $0.name == name }) else { return nil }
        self = t
    }

    /// How many array levels the "coordinates" member has (a position counts as one).
    var coordinateDepth: Int {
        switch self {
        case .point: return 1
        case .multiPoint, .lineString: return 2
        case .multiLineString, .polygon: return 3
        case .multiPolygon: return 4
        case .geometryCollection: return 0
        }
    }
}

/// A geometry. Positions are never objects: all of them sit in `xy` as interleaved
/// longitude/latitude pairs, and the nesting of lines, rings and polygons is kept as end indices.
/// Members most geometries lack (altitudes, polygon ends, collection members, bbox, foreign
/// members) live in one shared box, so a Point is 34 bytes with no heap block of its own.
public struct Geometry: Sendable {
    // Declared so that the two one-byte members (the coordinates' inline/array tag and `type`)
    // end the struct together: 34 bytes, whose tail `Feature` fills with its id's kind.
    /// MultiLineString lines, Polygon rings, MultiPolygon rings: the position index where each ends.
    public var partEnds: ContiguousArray<Int>
    private var rare: CopyOnWriteBox<RareMembers>?
    /// Longitude and latitude of every position, interleaved (x0, y0, x1, y1, …), in document order.
    public var xy: CoordinateList
    public var type: GeometryType

    struct RareMembers: Sendable {
        var z: ContiguousArray<Double>?
        var polygonEnds: ContiguousArray<Int> = []
        var geometries: [Geometry] = []
        var bbox: [Double]?
        var foreignMembers = JSONObject()
    }

    public init(
        type: GeometryType, xy: CoordinateList = [], z: ContiguousArray<Double>? = nil,
        partEnds: ContiguousArray<Int> = [], polygonEnds: ContiguousArray<Int> = [],
        geometries: [Geometry] = [], bbox: [Double]? = nil, foreignMembers: JSONObject = JSONObject()
    ) {
        self.type = type
        self.xy = xy
        self.partEnds = partEnds
        if z != nil || !polygonEnds.isEmpty || !geometries.isEmpty || bbox != nil || !foreignMembers.isEmpty {
            rare = CopyOnWriteBox(
                RareMembers(
                    z: z, polygonEnds: polygonEnds, geometries: geometries,
                    bbox: bbox, foreignMembers: foreignMembers))
        }
    }

    /// A Point at a position.
    public static func point(_ lon: Double, _ lat: Double) -> Geometry {
        Geometry(type: .point, xy: CoordinateList(lon, lat))
    }

    /// Number of positions held directly (GeometryCollection members not included).
    public var positionCount: Int { xy.count / 2 }

    /// Altitude per position, present when any position of this geometry has one; NaN marks a
    /// position written with two numbers only.
    public var z: ContiguousArray<Double>? {
        get { rare?.value.z }
        set { if newValue != nil || rare != nil { CopyOnWriteBox.unique(&rare, RareMembers()).value.z = newValue } }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.z }
    }

    /// MultiPolygon: the part (ring) index where each polygon ends.
    public var polygonEnds: ContiguousArray<Int> {
        get { rare?.value.polygonEnds ?? [] }
        set {
            if !newValue.isEmpty || rare != nil {
                CopyOnWriteBox.unique(&rare, RareMembers()).value.polygonEnds = newValue
            }
        }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.polygonEnds }
    }

    /// GeometryCollection members.
    public var geometries: [Geometry] {
        get { rare?.value.geometries ?? [] }
        set {
            if !newValue.isEmpty || rare != nil {
                CopyOnWriteBox.unique(&rare, RareMembers()).value.geometries = newValue
            }
        }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.geometries }
    }

    /// The "bbox" member as written (2·n numbers); MapCore computes boxes from positions instead.
    public var bbox: [Double]? {
        get { rare?.value.bbox }
        set { if newValue != nil || rare != nil { CopyOnWriteBox.unique(&rare, RareMembers()).value.bbox = newValue } }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.bbox }
    }

    /// Members other than the standard ones, kept so that serialization gives them back.
    public var foreignMembers: JSONObject {
        get { rare?.value.foreignMembers ?? JSONObject() }
        set {
            if !newValue.isEmpty || rare != nil {
                CopyOnWriteBox.unique(&rare, RareMembers()).value.foreignMembers = newValue
            }
        }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.foreignMembers }
    }

    /// Empties the positions and their nesting (a repeated "coordinates" member replaces the
    /// earlier one), keeping the position storage's capacity.
    mutating func removeAllPositions() {
        xy.removeAll(keepingCapacity: true)
        partEnds.removeAll()
        if rare != nil {
            z = nil
            polygonEnds.removeAll()
        }
    }
}

/// Holds a value out of line and copies it only when a shared holder mutates it: for members
/// most values lack, so the common value stays small and copies cheaply.
final class CopyOnWriteBox<Value: Sendable>: @unchecked Sendable {
    // Unchecked: the value is only mutated through `unique`, i.e. while no one else holds the box.
    var value: Value

    init(_ value: Value) { self.value = value }

    /// The box in `slot`, made unique to it first (copied if shared, created from `empty` if absent).
    static func unique(_ slot: inout CopyOnWriteBox?, _ empty: @autoclosure () -> Value) -> CopyOnWriteBox {
        if isKnownUniquelyReferenced(&slot), let box = slot { return box }
        let box = CopyOnWriteBox(slot?.value ?? empty())
        slot = box
        return box
    }
}

extension Geometry: Equatable {
    public static func == (a: Geometry, b: Geometry) -> Bool {
        a.type == b.type && a.xy == b.xy && a.partEnds == b.partEnds && a.polygonEnds == b.polygonEnds
            && a.geometries == b.geometries && a.bbox == b.bbox && a.foreignMembers == b.foreignMembers
            && altitudesEqual(a.z, b.z)
    }

    private static func altitudesEqual(_ a: ContiguousArray<Double>?, _ b: ContiguousArray<Double>?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (a?, b?):
            guard a.count == b.count else { return false }
            for i in a.indices where !(a[i] == b[i] || (a[i].isNaN && b[i].isNaN)) { return false }
            return true
        default: return false
        }
    }
}

/// A feature id: RFC 7946 allows a string or a number.
public enum FeatureID: Hashable, Sendable {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case double(Double)

    public var jsonValue: JSONValue {
        switch self {
        case .string(let s): return .string(s)
        case .int(let v): return .int(v)
        case .uint(let v): return .uint(v)
        case .double(let v): return .double(v)
        }
    }
}

/// 64 bytes: a numeric id is held inline (its kind in the geometry's tail padding), a string id
/// in the box of rare members, since a million features are a million of these.
public struct Feature: Equatable, Sendable {
    /// nil for `"geometry": null` (unlocated features).
    public var geometry: Geometry?
    private var idKind: IDKind
    private var idBits: UInt64
    /// nil for `"properties": null` or a missing member.
    public var properties: JSONObject?
    private var rare: CopyOnWriteBox<RareMembers>?

    private enum IDKind: UInt8 { case none, int, uint, double, string }

    struct RareMembers: Equatable, Sendable {
        var bbox: [Double]?
        var foreignMembers = JSONObject()
        var stringID: String?
    }

    public init(
        geometry: Geometry?, properties: JSONObject? = nil, id: FeatureID? = nil,
        bbox: [Double]? = nil, foreignMembers: JSONObject = JSONObject()
    ) {
        self.geometry = geometry
        self.properties = properties
        idKind = .none
        idBits = 0
        if bbox != nil || !foreignMembers.isEmpty {
            rare = CopyOnWriteBox(RareMembers(bbox: bbox, foreignMembers: foreignMembers))
        }
        self.id = id
    }

    public var id: FeatureID? {
        get {
            switch idKind {
            case .none: return nil
            case .int: return .int(Int64(bitPattern: idBits))
            case .uint: return .uint(idBits)
            case .double: return .double(Double(bitPattern: idBits))
            case .string: return rare?.value.stringID.map(FeatureID.string)
            }
        }
        set {
            if case .string(let s)? = newValue {
                CopyOnWriteBox.unique(&rare, RareMembers()).value.stringID = s
                (idKind, idBits) = (.string, 0)
                return
            }
            if idKind == .string { CopyOnWriteBox.unique(&rare, RareMembers()).value.stringID = nil }
            switch newValue {
            case .int(let v)?: (idKind, idBits) = (.int, UInt64(bitPattern: v))
            case .uint(let v)?: (idKind, idBits) = (.uint, v)
            case .double(let v)?: (idKind, idBits) = (.double, v.bitPattern)
            case nil, .string?: (idKind, idBits) = (.none, 0)
            }
        }
    }

    public var bbox: [Double]? {
        get { rare?.value.bbox }
        set { if newValue != nil || rare != nil { CopyOnWriteBox.unique(&rare, RareMembers()).value.bbox = newValue } }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.bbox }
    }

    public var foreignMembers: JSONObject {
        get { rare?.value.foreignMembers ?? JSONObject() }
        set {
            if !newValue.isEmpty || rare != nil {
                CopyOnWriteBox.unique(&rare, RareMembers()).value.foreignMembers = newValue
            }
        }
        _modify { yield &CopyOnWriteBox.unique(&rare, RareMembers()).value.foreignMembers }
    }

    public static func == (a: Feature, b: Feature) -> Bool {
        a.geometry == b.geometry && a.id == b.id && a.properties == b.properties
            && a.bbox == b.bbox && a.foreignMembers == b.foreignMembers
    }
}

public struct FeatureCollection: Equatable, Sendable {
    public var features: [Feature]
    public var bbox: [Double]?
    public var foreignMembers: JSONObject

    public init(features: [Feature] = [], bbox: [Double]? = nil, foreignMembers: JSONObject = JSONObject()) {
        self.features = features
        self.bbox = bbox
        self.foreignMembers = foreignMembers
    }
}

/// Any GeoJSON object.
public enum GeoJSON: Equatable, Sendable {
    case geometry(Geometry)
    case feature(Feature)
    case featureCollection(FeatureCollection)

    /// Calls `body` with every geometry that holds positions directly (GeometryCollections are
    /// opened), in document order. Iterative: no recursion over caller-supplied nesting.
    public func forEachGeometry(_ body: (Geometry) throws -> Void) rethrows {
        switch self {
        case .geometry(let g): try Geometry.walk(g, body)
        case .feature(let f): if let g = f.geometry { try Geometry.walk(g, body) }
        case .featureCollection(let c):
            for f in c.features { if let g = f.geometry { try Geometry.walk(g, body) } }
        }
    }

    /// The features of a collection, the feature itself, or nothing for a bare geometry.
    public var features: [Feature] {
        switch self {
        case .geometry: return []
        case .feature(let f): return [f]
        case .featureCollection(let c): return c.features
        }
    }
}

extension Geometry {
    static func walk(_ root: Geometry, _ body: (Geometry) throws -> Void) rethrows {
        guard root.type == .geometryCollection else { try body(root); return }
        var stack: [(members: [Geometry], next: Int)] = [(root.geometries, 0)]
        while let last = stack.indices.last {
            let (members, next) = stack[last]
            guard next < members.count else { stack.removeLast(); continue }
            stack[last].next += 1
            let g = members[next]
            if g.type == .geometryCollection { stack.append((g.geometries, 0)) } else { try body(g) }
        }
    }
}
