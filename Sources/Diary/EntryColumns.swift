import TaskModel

/// Where a SQL diary's insert binds an entry's columns (SQLite's statement, PostgreSQL's
/// bindings): one value after another, in the order ``TaskRecord/bindEntryColumns(to:)``
/// gives them.
public protocol EntryColumnBinder: ~Copyable {
    mutating func bind(_ value: Int64)
    mutating func bind(_ value: Int64?)
    mutating func bind(_ value: String?)
    mutating func bind(_ value: Bool)
}

extension TaskRecord {
    /// The columns a SQL diary keeps of an entry beside its record's JSON, bound to `binder`
    /// in this order: id, recurrence id (`NULL`: the entry itself), start, finish, name,
    /// description, whether it occupies its slot alone (a single entry that takes time),
    /// whether it repeats, the record's JSON line. The SQLite and the PostgreSQL diary
    /// insert them so, each after columns of its own (PostgreSQL: the diary's name first).
    public func bindEntryColumns<Binder: EntryColumnBinder & ~Copyable>(to binder: inout Binder) {
        binder.bind(id)
        binder.bind(recurrenceID)
        binder.bind(dateStart)
        binder.bind(dateFinish)
        binder.bind(name)
        binder.bind(description)
        binder.bind(occupiesTime && recurrence == nil)
        binder.bind(recurrence != nil)
        binder.bind(jsonLine)
    }
}
