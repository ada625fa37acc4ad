// With the CalDAV trait; without it, MissingTraits.swift stands in for these commands.
#if CalDAV

import ArgumentParser
import CalDAV
import Foundation
import Localization
import TaskConversion
import TaskModel

/// Options every command that talks to a CalDAV server takes.
struct ServerOptions: ParsableArguments {
    @Flag(
        help:
            .tr(
                "Allow plain http:// to another machine (the password and the calendar would cross the network unencrypted; http:// to this machine is always allowed)."
            )
    )
    var allowHTTP = false

    @Option(help: ArgumentHelp(tr("How long one request may take, in seconds."), valueName: "s"))
    var timeout: Int = 60

    func validate() throws {
        if timeout < 1 { throw ValidationError("--timeout must be at least 1 second") }
    }

    func address(_ text: String) throws -> CalDAVAddress {
        do {
            return try CalDAVAddress(text, allowHTTP: allowHTTP)
        } catch {
            throw ValidationError(error.description)
        }
    }

    func client() -> CalDAVClient {
        CalDAVClient(
            sources: CredentialSources(warn: { Console.note("warning: \($0)") }),
            allowHTTP: allowHTTP, timeout: timeout)
    }

    /// Runs a server call; a failure prints its reason and exits 2 (the server could not be
    /// used), since nothing was done but what is said.
    func run<T>(_ body: () throws(CalDAVError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            Console.error(error.description)
            throw ExitCode(2)
        }
    }
}

extension CalDAVAddress {
    /// The address as a collection's, ending in `/`.
    var asCollectionText: String {
        url.absoluteString.hasSuffix("/") ? url.absoluteString : url.absoluteString + "/"
    }
}

#endif
