import GRDB
import GRDBSQLite

/// One run of a statement GRDB prepared and cached, its values bound straight through
/// SQLite's C API.
///
/// For the two statements of every add (the prelude and the insert): GRDB's
/// `StatementArguments` box each value as an existential in an array, check their count
/// and convert each through `DatabaseValue`, a tenth of what an add costs apart from the
/// storage. Here an `Int64` or a `String` goes to `sqlite3_bind_*` as it is.
///
/// The statement is stepped, read and reset inside ``run(_:bind:read:)``, so GRDB finds it
/// reset with no values bound when it hands it out again.
struct BoundStatement: ~Copyable, EntryColumnBinder {
    private let statement: SQLiteStatement
    private var index: Int32 = 1
    /// The first value SQLite refused (too large), thrown before the statement runs.
    private var refused: Int32 = SQLITE_OK

    private init(_ statement: SQLiteStatement) { self.statement = statement }

    /// Runs `statement`: `bind` binds its values in order, then each row it returns goes to
    /// `read` (its columns read by ``int64(_:)``). An error of SQLite's is thrown as GRDB's
    /// `DatabaseError` would be, with the statement's SQL.
    static func run(
        _ statement: Statement, bind: (inout BoundStatement) -> Void,
        read: (borrowing BoundStatement) -> Void = { _ in }
    ) throws {
        var bound = BoundStatement(statement.sqliteStatement)
        defer {
            sqlite3_reset(bound.statement)
            sqlite3_clear_bindings(bound.statement)
        }
        bind(&bound)
        var code = bound.refused
        while code == SQLITE_OK || code == SQLITE_ROW {
            code = sqlite3_step(bound.statement)
            if code == SQLITE_ROW { read(bound) }
        }
        guard code == SQLITE_DONE else {
            guard bound.refused == SQLITE_OK, let connection = sqlite3_db_handle(bound.statement)
            else { throw DatabaseError(resultCode: ResultCode(rawValue: code), sql: statement.sql) }
            throw DatabaseError(
                resultCode: ResultCode(rawValue: sqlite3_extended_errcode(connection)),
                message: String(cString: sqlite3_errmsg(connection)), sql: statement.sql)
        }
    }

    mutating func bind(_ value: Int64) {
        note(sqlite3_bind_int64(statement, index, value))
    }

    mutating func bind(_ value: Bool) { bind(value ? 1 as Int64 : 0) }

    mutating func bind(_ value: Int64?) {
        if let value { bind(value) } else { bindNull() }
    }

    mutating func bind(_ value: String?) {
        guard var value else { return bindNull() }
        let (statement, index) = (self.statement, self.index)
        note(
            value.withUTF8 { text in
                // An empty text is not NULL: SQLite takes a null pointer for NULL.
                guard let start = text.baseAddress else {
                    return sqlite3_bind_text(statement, index, "", 0, nil)
                }
                // SQLITE_TRANSIENT: SQLite copies the text before the String may go.
                return sqlite3_bind_text64(
                    statement, index, UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self),
                    UInt64(text.count), unsafeBitCast(-1 as Int, to: sqlite3_destructor_type.self),
                    UInt8(SQLITE_UTF8))
            })
    }

    mutating func bindNull() { note(sqlite3_bind_null(statement, index)) }

    private mutating func note(_ code: Int32) {
        if code != SQLITE_OK && refused == SQLITE_OK { refused = code }
        index += 1
    }

    /// Column `column` (from 0) of the row just stepped to, as an integer.
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
}
