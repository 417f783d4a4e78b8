import Foundation

/// Owns C copies of strings and arrays handed to C functions, and frees them
/// when it goes away: a way to pass many strings without nesting `withCString`.
package final class CStringStorage {
    private var allocations: [UnsafeMutableRawPointer] = []

    deinit {
        allocations.forEach { free($0) }
    }

    /// A NUL-terminated copy of `string`, or NULL for nil.
    package func string(_ string: String?) -> UnsafePointer<CChar>? {
        guard let string, let copy = strdup(string) else { return nil }
        allocations.append(UnsafeMutableRawPointer(copy))
        return UnsafePointer(copy)
    }

    /// A C array of NUL-terminated copies of `strings`.
    package func strings(_ strings: [String]) -> UnsafePointer<UnsafePointer<CChar>?>? {
        array(strings.map { string($0) })
    }

    /// A C copy of `values`, or NULL when empty.
    package func array<T>(_ values: [T]) -> UnsafePointer<T>? {
        guard !values.isEmpty else { return nil }
        let memory = UnsafeMutablePointer<T>.allocate(capacity: values.count)
        memory.initialize(from: values, count: values.count)
        allocations.append(UnsafeMutableRawPointer(memory))
        return UnsafePointer(memory)
    }
}
