import Foundation
import UntangleSync

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1 for URLSession tests: POSIX sockets, one thread per connection, no internet.
///
/// `respond(method, path, body)` returns the response, or nil to hold the connection open without answering until the
/// client closes it (for cancellation tests). Every request and every closed held connection is recorded and can be
/// awaited.
final class LoopbackHTTPServer: @unchecked Sendable {
    struct Response {
        var status = 200
        var body: String
    }

    private struct State {
        var requests: [String] = []
        var heldConnectionsClosed = 0
        var stopped = false
        var connections: Set<Int32> = []
    }

    private let listener: Int32
    private(set) var port: UInt16 = 0
    private let state = LockedBox(State())
    private let events = DispatchSemaphore(value: 0)
    private let respond: @Sendable (_ method: String, _ path: String, _ body: String) -> Response?

    var requests: [String] { state.withLock { $0.requests } }
    var heldConnectionsClosed: Int { state.withLock { $0.heldConnectionsClosed } }

    init(respond: @escaping @Sendable (_ method: String, _ path: String, _ body: String) -> Response?) throws {
        self.respond = respond
        #if canImport(Glibc)
            listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            listener = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard listener >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// Waits until `condition` holds (30 s watchdog), re-checking after every server event and at least every 10 ms
    /// (for conditions on the client side, such as a subscriber's completion).
    func wait(until condition: (LoopbackHTTPServer) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + 30
        while !condition(self) {
            if DispatchTime.now() > deadline { return false }
            _ = events.wait(timeout: .now() + 0.01)
        }
        return true
    }

    // Descriptor numbers are reused as soon as they are closed, and the next test's server is made at once: a
    // descriptor this server closed could name the next server's socket while this server's threads still use the
    // number. So `stop()` only shuts sockets down (which wakes the threads blocked on them) and never closes one; each
    // socket is closed by the thread that uses it, when it is done: the listener by the accept loop once `accept`
    // fails, a connection by its thread after taking it out of `connections` under the lock. `stop()` shuts the open
    // connections down under that same lock, so it never reaches a number that was closed. (A CI run lost a request:
    // the previous test's accept loop, stopped but not yet blocked in `accept`, accepted on the reused number and
    // closed the connection.)
    func stop() {
        state.withLock { state in
            state.stopped = true
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func signal() {
        // Wake every waiter that may be waiting (a few at most in these tests).
        for _ in 0..<4 { events.signal() }
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                // A connection the client gave up before it was accepted, or a signal: keep listening.
                if errno == ECONNABORTED || errno == EINTR, !state.withLock({ $0.stopped }) { continue }
                return
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(connection)
                return true
            }
            guard accepted else {
                close(connection)
                return
            }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            _ = state.withLock { $0.connections.remove(connection) }
            close(connection)
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            if let end = headerEnd, received.count >= end + contentLength { break }
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { return }
            received.append(contentsOf: buffer[0..<count])
            if headerEnd == nil, let range = String(decoding: received, as: UTF8.self).range(of: "\r\n\r\n") {
                let head = String(decoding: received, as: UTF8.self)[..<range.lowerBound]
                headerEnd = String(decoding: received, as: UTF8.self)[..<range.upperBound].utf8.count
                for line in head.split(separator: "\r\n") {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" {
                        contentLength = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
                    }
                }
            }
        }
        let text = String(decoding: received, as: UTF8.self)
        let requestLine = text.prefix { $0 != "\r" }.split(separator: " ")
        let method = requestLine.first.map(String.init) ?? ""
        let path = requestLine.dropFirst().first.map(String.init) ?? ""
        let body = String(decoding: received[(headerEnd ?? received.count)...], as: UTF8.self)
        state.withLock { $0.requests.append("\(method) \(path)") }
        signal()
        guard let response = respond(method, path, body) else {
            // Hold the connection until the client goes away.
            while read(connection, &buffer, buffer.count) > 0 {}
            state.withLock { $0.heldConnectionsClosed += 1 }
            signal()
            return
        }
        let payload = Array(response.body.utf8)
        let head =
            "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Status")\r\n"
            + "Content-Type: text/plain\r\nContent-Length: \(payload.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + payload
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
            if count <= 0 { return }
            written += count
        }
    }
}
