import Diary
import Foundation
import Reports
import TaskConversion
import TaskModel

// 1. A record of the task format, with an alarm, as iCalendar and as JSCalendar.
let dentist = TaskRecord(
    id: 1, dateStart: 1_795_766_400, dateFinish: 1_795_770_000, name: "Dentist",
    description: "Описание моего дела",
    alarms: [Alarm(action: .display, trigger: .relative("-PT15M", fromEnd: false))])
let writer = EventWriter(timestamp: 1_700_000_000)
for component in try writer.components(for: dentist) {
    print(component.serialized(), terminator: "")
}
var json = JSONWriter()
for object in try dentist.jscalendarObjects(timestamp: 1_700_000_000) {
    json.value(object)
}
print(json.text)

// 2. A diary that refuses a second entry in a taken slot, naming the first.
let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
    "library-tour-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let store = try StoreLocation.resolve(folder.appendingPathComponent("diary.sqlite").path).open()
let added = try store.add(dentist)
print("added #\(added.id)")
do {
    _ = try store.add(
        TaskRecord(id: 0, dateStart: 1_795_768_200, dateFinish: 1_795_772_000, name: "Call"))
    print("error: the diary took an overlapping entry")
    exit(1)
} catch {
    print("refused: \(error)")
}

// 3. The free time around it, as the command line would print it.
let time = try LocalTime(zone: "Europe/Berlin")
let free = FreeTime(
    busy: try store.allEntries().map { time.occupied(by: $0) },
    window: TimeSpan(start: 1_795_737_600, finish: 1_795_824_000), time: time, minimum: 3_600)
print(free.text(in: time, style: PlainStyle()), terminator: "")
