import Diary
import Foundation

/// What taskcal asks of the person at the terminal.
enum Terminal {
    /// The keyring of the command line: the environment, and passphrases asked for on the
    /// terminal.
    static var keyring: Keyring { Keyring(askPassphrase: askSecret) }

    /// Asks for a secret on the controlling terminal (`/dev/tty`) with echo off, so that it is
    /// neither shown nor read from a pipe meant for data; `nil` without a terminal.
    @Sendable static func askSecret(_ prompt: String) -> [UInt8]? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        _ = prompt.withCString { Glibc.write(tty, $0, strlen($0)) }
        guard tcsetattr(tty, TCSAFLUSH, &quiet) == 0 else { return nil }
        defer { tcsetattr(tty, TCSAFLUSH, &saved) }
        var secret: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(tty, &byte, 1) == 1 && byte != UInt8(ascii: "\n") {
            if byte != UInt8(ascii: "\r") { secret.append(byte) }
        }
        return secret
    }
}
