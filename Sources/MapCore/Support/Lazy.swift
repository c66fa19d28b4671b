// Support: a value made on first use, once, under a lock, then shared: a state's tile index or
// cluster index costs nothing until someone asks for it, and the threads asking at once wait
// for the one build instead of each making their own.

final class Lazy<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value?

    /// The value, made by `make` on the first call; a failed `make` leaves it unmade, so the
    /// next call tries again (and reports the same error).
    func get(_ make: () throws(MapCoreError) -> Value) throws(MapCoreError) -> Value {
        try lock.withLock { () throws(MapCoreError) -> Value in
            if let value { return value }
            let made = try make()
            value = made
            return made
        }
    }

    /// The value if it has been made.
    var ifMade: Value? { lock.withLock { value } }
}
