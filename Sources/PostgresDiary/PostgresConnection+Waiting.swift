// Built with the PostgreSQL trait only (Package.swift): without it, this module is empty.
#if PostgreSQL

import Diary
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import TaskConversion
import TaskModel

extension PostgresConnection {
    /// Runs `query` and waits for all of its rows.
    @discardableResult
    func run(_ query: PostgresQuery, _ logger: Logger) throws -> PostgresQueryResult {
        try answer(send(query, logger))
    }

    /// Sends `query` from the connection's event loop, where whether the connection is still
    /// open is known for sure. PostgresNIO 1.33.2 writes a query's task with `promise: nil`,
    /// so a query written to a closed connection is dropped: never answered (an import whose
    /// server was killed waited for ever) and never freed (LeakSanitizer reported it).
    func send(_ query: PostgresQuery, _ logger: Logger)
        -> EventLoopFuture<PostgresQueryResult>
    {
        eventLoop.flatSubmit {
            self.isClosed
                ? self.eventLoop.makeFailedFuture(ConnectionLost())
                : self.query(query, logger: logger)
        }
    }

    /// Waits for `future`, a query's answer on this connection, or for the connection to close.
    ///
    /// A safety net under ``send(_:_:)``: should a query still go unanswered once the
    /// connection has closed, one second after the close the wait ends with
    /// ``ConnectionLost`` (the second lets a server's own last word arrive first).
    func answer<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: promise)
        closeFuture.whenComplete { _ in
            promise.futureResult.eventLoop.scheduleTask(in: .seconds(1)) {
                promise.fail(ConnectionLost())
            }
        }
        return try promise.futureResult.wait()
    }
}

/// The connection closed while a query waited for its answer.
struct ConnectionLost: Error {}

/// PostgreSQL's bindings take an entry's columns as the SQLite diary's statement does.
extension PostgresBindings: EntryColumnBinder {
    public mutating func bind(_ value: Int64) { append(value) }
    public mutating func bind(_ value: Int64?) { append(value) }
    public mutating func bind(_ value: String?) { append(value) }
    public mutating func bind(_ value: Bool) { append(value) }
}

#endif
