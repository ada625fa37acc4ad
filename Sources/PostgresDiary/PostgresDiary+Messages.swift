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

extension PostgresDiary {
    // MARK: - Messages

    /// What went wrong with the server, said plainly and without the password.
    /// `connecting`: the error ended the attempt to connect, not a connection that was open.
    static func describe(
        _ error: any Error, address: PostgresAddress, password: Bool, connecting: Bool = false
    ) -> String {
        guard let error = error as? PSQLError else {
            if let error = error as? DiaryError { return error.description }
            if error is ConnectionLost {
                return "the connection to the server was lost; nothing more was written"
            }
            return "\(error)"
        }
        if let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            var text = info[.message] ?? "the server refused"
            // One template each, so that the message is translated whole where it is shown.
            switch state {
            case "28P01", "28000":
                text =
                    password
                    ? "\(text) (check the password in ~/.pgpass or PGPASSWORD)"
                    : "\(text) (no password was found: put it in ~/.pgpass, chmod 600, or PGPASSWORD)"
            case "3D000":
                text = "\(text) (create it first: createdb \(address.database))"
            case "55P03":
                text = "another writer has held the diary for 30 s; nothing was written, try again"
            case "57014":
                text =
                    "\(text): the server's statement_timeout (or someone) cancelled it; nothing was written"
            case "57P01", "57P02", "57P03":
                text = "\(text); nothing was written, try again once the server is back"
            case "53100":
                text = "the server's disk is full (\(text)); nothing was written"
            case "53300":
                text = "\(text) (the server takes no more connections now; try again later)"
            case "42501":
                text =
                    "\(text) (the user \(address.user) needs the right to create tables and the btree_gist extension in \(address.database), or an owner who runs taskcal once)"
            default:
                if let detail = info[.detail] { text = "\(text) (\(detail))" }
            }
            return state.isEmpty ? text : "\(text) [SQLSTATE \(state)]"
        }
        switch error.code {
        case .authMechanismRequiresPassword:
            return
                "the server asks for a password and none was found: put it in ~/.pgpass (chmod 600) or PGPASSWORD"
        case .connectionError where !connecting:
            let reason = error.underlying.map { "\($0)" } ?? ""
            return reason.contains(#"reset by peer"#)
                ? "the connection to the server was lost (reset by the server); nothing more was written"
                : "the connection to the server was lost; nothing more was written"
        case .connectionError:
            let where_ =
                address.isSocket
                ? "its socket \(address.host)/.s.PGSQL.\(address.port)"
                : "\(address.host):\(address.port)"
            // NIO's errors are long; the reason a person acts on is in them.
            let text = error.underlying.map { "\($0)" } ?? ""
            let why =
                [
                    "Connection refused", "No such file or directory", "timed out", "Timeout",
                    "Network is unreachable", "No route to host", "Name or service not known",
                    "Temporary failure in name resolution", "Permission denied",
                ]
                .first { text.localizedCaseInsensitiveContains($0) }?.lowercased()
                ?? (text.isEmpty ? "no answer" : text)
            return "cannot connect to the server at \(where_) (\(why)); is it running?"
        case .sslUnsupported:
            return "the server offers no TLS, and sslmode \(address.tls.rawValue) asks for it"
        case .serverClosedConnection, .clientClosedConnection, .uncleanShutdown:
            // The server's own last word (it was shut down, or ended this connection).
            if let inner = error.underlying as? PSQLError, inner.serverInfo != nil {
                return describe(inner, address: address, password: password)
            }
            return "the connection to the server was lost; nothing more was written"
        default:
            return "\(error.code)"
        }
    }
}

#endif
