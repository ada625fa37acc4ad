import TaskConversion

/// What was done, as the habit tracker counted it: each occurrence of a habit scheduled on a
/// day is done or not; a run of occurrences done one after another is a period, and a day on
/// which every habit scheduled was done is an ideal day.
public struct HabitTally: Sendable {
    /// A habit (a repeating entry) as the tally names it.
    public struct Habit: Sendable, Hashable, Comparable {
        public var id: Int64
        public var name: String
        /// A CSS colour name, when the entry has one.
        public var color: String?

        public init(id: Int64, name: String, color: String?) {
            self.id = id
            self.name = name
            self.color = color
        }

        public static func < (lhs: Habit, rhs: Habit) -> Bool {
            (lhs.id, lhs.name) < (rhs.id, rhs.name)
        }
    }

    /// A run of occurrences done one after another: how many, and the days of the first and
    /// the last.
    public struct Period: Sendable, Hashable {
        public var occurrences: Int
        public var first: LocalTime.Day
        public var last: LocalTime.Day
    }

    /// One habit's count: occurrences scheduled (up to the tally's end) and done, its best
    /// period, and the run that reaches its last occurrence.
    public struct Row: Sendable, Hashable {
        public var habit: Habit
        public var scheduled: Int
        public var done: Int
        public var best: Period?
        public var current: Int
        /// The days (``LocalTime/Day/ordinal``) it was scheduled on, and those it was done on.
        public var scheduledDays: Set<Int64>
        public var doneDays: Set<Int64>
    }

    /// One scheduled occurrence: its habit, its day and whether it was done.
    public struct Occurrence: Sendable {
        public var habit: Habit
        public var start: Int64
        public var day: LocalTime.Day
        public var done: Bool

        public init(habit: Habit, start: Int64, day: LocalTime.Day, done: Bool) {
            self.habit = habit
            self.start = start
            self.day = day
            self.done = done
        }
    }

    /// Each habit's row, in order of id.
    public var rows: [Row]
    /// The longest run of occurrences done, all habits together in time order.
    public var best: Period?
    /// Days with a habit scheduled on which every habit scheduled was done.
    public var idealDays: Int
    /// Per day (``LocalTime/Day/ordinal``), the occurrences scheduled and done.
    public var days: [Int64: (scheduled: Int, done: Int)]

    /// The tally of `occurrences` (those scheduled up to the end of the tally).
    public init(_ occurrences: [Occurrence]) {
        let sorted = occurrences.sorted { ($0.start, $0.habit) < ($1.start, $1.habit) }
        best = Self.best(in: sorted)
        var byHabit: [Habit: [Occurrence]] = [:]
        var days: [Int64: (scheduled: Int, done: Int)] = [:]
        for occurrence in sorted {
            byHabit[occurrence.habit, default: []].append(occurrence)
            days[occurrence.day.ordinal, default: (0, 0)].scheduled += 1
            if occurrence.done { days[occurrence.day.ordinal, default: (0, 0)].done += 1 }
        }
        self.days = days
        idealDays = days.values.filter { $0.scheduled > 0 && $0.done == $0.scheduled }.count
        rows = byHabit.keys.sorted().map { habit in
            let list = byHabit[habit] ?? []
            return Row(
                habit: habit, scheduled: list.count, done: list.filter(\.done).count,
                best: Self.best(in: list),
                current: list.reversed().prefix { $0.done }.count,
                scheduledDays: Set(list.map(\.day.ordinal)),
                doneDays: Set(list.filter(\.done).map(\.day.ordinal)))
        }
    }

    /// The longest run of done occurrences in `list` (in time order); the first when two are
    /// as long.
    static func best(in list: [Occurrence]) -> Period? {
        var best: Period?
        var run: Period?
        for occurrence in list {
            guard occurrence.done else {
                run = nil
                continue
            }
            if var current = run {
                current.occurrences += 1
                current.last = occurrence.day
                run = current
            } else {
                run = Period(occurrences: 1, first: occurrence.day, last: occurrence.day)
            }
            if let current = run, current.occurrences > (best?.occurrences ?? 0) { best = current }
        }
        return best
    }
}
