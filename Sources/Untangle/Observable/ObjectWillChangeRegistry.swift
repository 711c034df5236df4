import UntangleSync

/// Finds or creates the `objectWillChange` publisher of an ``ObservableObject`` that uses the default one.
///
/// The publisher lives in the object's `@Published` properties (each one's storage keeps it, to announce its changes);
/// for an object without any, in a table keyed by object identity that holds the object weakly.
///
/// ```swift
/// let publisher = ObjectWillChangeRegistry.publisher(for: model)   // the same publisher on every call
/// ```
///
/// **Thread safety:** may be called from any thread. Reflection and the properties' own installs happen outside the
/// table's lock; concurrent first calls agree on one publisher because the first `@Published` property (in mirror
/// order) decides.
enum ObjectWillChangeRegistry {
    private struct Entry: @unchecked Sendable {
        // Only compared by identity and released outside the lock.
        weak var owner: AnyObject?
        let publisher: ObservableObjectPublisher
    }

    private struct Table: Sendable {
        var entries: [ObjectIdentifier: Entry] = [:]
        var pruneAt = 64
    }

    private static let table = LockedBox(Table())

    static func publisher(for object: AnyObject) -> ObservableObjectPublisher {
        let storages = publishedStorages(of: object)
        if let first = storages.first {
            // Every caller installs the publisher the first property holds, so all properties agree with it.
            let publisher = first.installObjectWillChange(ObservableObjectPublisher())
            for storage in storages.dropFirst() {
                _ = storage.installObjectWillChange(publisher)
            }
            return publisher
        }
        return tablePublisher(for: object)
    }

    private static func publishedStorages(of object: AnyObject) -> [any PublishedStorage] {
        var storages: [any PublishedStorage] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                if let storage = child.value as? any PublishedStorage {
                    storages.append(storage)
                }
            }
            mirror = current.superclassMirror
        }
        return storages
    }

    private static func tablePublisher(for object: AnyObject) -> ObservableObjectPublisher {
        let key = ObjectIdentifier(object)
        let candidate = ObservableObjectPublisher()
        let (publisher, pruned) = table.withCriticalSection { table -> (ObservableObjectPublisher, [Entry]) in
            if let entry = table.entries[key], entry.owner === object {
                return (entry.publisher, [])
            }
            // A dead entry under this key belonged to an earlier object at the same address: replaced.
            var pruned: [Entry] = []
            if let stale = table.entries[key] { pruned.append(stale) }
            table.entries[key] = Entry(owner: object, publisher: candidate)
            if table.entries.count >= table.pruneAt {
                let dead = table.entries.filter { $0.value.owner == nil }
                for key in dead.keys { table.entries[key] = nil }
                pruned.append(contentsOf: dead.values)
                table.pruneAt = max(64, table.entries.count * 2)
            }
            return (candidate, pruned)
        }
        // Publishers of dead objects are released here, outside the lock: their subscribers' deinit is user code.
        withExtendedLifetime(pruned) {}
        return publisher
    }
}
