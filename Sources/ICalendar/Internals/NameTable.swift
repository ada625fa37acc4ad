import Glibc

/// Values looked up by short names (property names, component names), matched on their
/// UTF-8 bytes.
///
/// Reading and writing an event ask such tables a few dozen times each. `Dictionary<String,
/// _>` hashes every key with SipHash and compares it by Unicode's canonical equivalence, some
/// 350 instructions a look-up (issue 13's profiles); this table hashes the bytes with FNV-1a
/// and compares them with `memcmp`, in open addressing over a power-of-two array.
///
/// Names are told apart by their bytes: two spellings that Swift's `==` calls equal (a
/// precomposed and a decomposed `É`) are two names here, as they are to libical.
package struct NameTable<Value> {
    @usableFromInline var names = NameIndex()
    @usableFromInline var values: [Value] = []

    /// How many names the table holds.
    @inlinable package var count: Int { values.count }

    /// An empty table.
    @inlinable package init() {}

    /// A table of `pairs`; of two pairs with one name, the first is kept.
    @inlinable package init(_ pairs: some Sequence<(String, Value)>) {
        for (name, value) in pairs where names.position(of: name) == nil {
            self[name] = value
        }
    }

    /// The value of `name`; setting adds the name or replaces its value (`nil` is not
    /// stored: a table only grows).
    @inlinable package subscript(name: String) -> Value? {
        get {
            guard let position = names.position(of: name) else { return nil }
            return values[position]
        }
        set {
            guard let newValue else { return }
            if let position = names.position(of: name) {
                values[position] = newValue
            } else {
                names.add(name, position: values.count)
                values.append(newValue)
            }
        }
    }

    /// The value of the name whose UTF-8 is `key`; setting adds or replaces it, as
    /// ``subscript(name:)`` does. For a caller that holds the bytes and would otherwise make
    /// a String of them only to look them up.
    @inlinable package subscript(bytes key: UnsafeBufferPointer<UInt8>) -> Value? {
        get {
            guard let position = names.position(ofBytes: key) else { return nil }
            return values[position]
        }
        set {
            guard let newValue else { return }
            if let position = names.position(ofBytes: key) {
                values[position] = newValue
            } else {
                names.add(bytes: key, position: values.count)
                values.append(newValue)
            }
        }
    }
}

extension NameTable: Sendable where Value: Sendable {}

/// The names of a ``NameTable`` and each one's position among its values. Not generic, so
/// that a look-up needs no type metadata at run time in any module.
@usableFromInline
struct NameIndex: Sendable {
    /// A name's place in ``bytes`` and its position; `position == -1`: an empty slot.
    private struct Slot: Sendable {
        var hash: UInt32
        var start: Int
        var length: Int
        var position: Int

        static let empty = Slot(hash: 0, start: 0, length: 0, position: -1)
    }

    private var slots = [Slot](repeating: .empty, count: 16)
    /// The names, one after another.
    private var bytes: [UInt8] = []
    private var count = 0

    @usableFromInline
    func position(of name: String) -> Int? {
        Self.withBytes(of: name) { position(ofBytes: $0) }
    }

    @usableFromInline
    func position(ofBytes key: UnsafeBufferPointer<UInt8>) -> Int? {
        let found = find(key, hash: Self.hash(key))
        return found.position >= 0 ? found.position : nil
    }

    /// Adds `name`, which is not in the index yet.
    @usableFromInline
    mutating func add(_ name: String, position: Int) {
        Self.withBytes(of: name) { add(bytes: $0, position: position) }
    }

    /// Adds the name whose UTF-8 is `key`, which is not in the index yet.
    @usableFromInline
    mutating func add(bytes key: UnsafeBufferPointer<UInt8>, position: Int) {
        let hash = Self.hash(key)
        slots[find(key, hash: hash).slot] = Slot(
            hash: hash, start: bytes.count, length: key.count, position: position)
        bytes.append(contentsOf: key)
        count += 1
        // At most half full, so that a miss ends soon.
        if count * 2 > slots.count { grow() }
    }

    private static func withBytes<Result>(
        of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        if let result = name.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(name.utf8).withUnsafeBufferPointer(body)
    }

    /// FNV-1a over the bytes.
    private static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in key { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash
    }

    /// The slot that holds `key` and its position, or the empty slot where it goes
    /// (position -1).
    private func find(_ key: UnsafeBufferPointer<UInt8>, hash: UInt32) -> (
        slot: Int, position: Int
    ) {
        let mask = slots.count - 1
        var index = Int(hash) & mask
        while true {
            let slot = slots[index]
            if slot.position < 0 { return (index, -1) }
            if slot.hash == hash, slot.length == key.count,
                key.isEmpty
                    || bytes.withUnsafeBufferPointer({ stored in
                        memcmp(stored.baseAddress! + slot.start, key.baseAddress!, key.count)
                            == 0
                    })
            {
                return (index, slot.position)
            }
            index = (index + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: .empty, count: old.count * 2)
        let mask = slots.count - 1
        for slot in old where slot.position >= 0 {
            var index = Int(slot.hash) & mask
            while slots[index].position >= 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }
}
