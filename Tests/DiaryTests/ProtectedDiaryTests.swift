import Diary
import Foundation
import TaskModel
import Testing

/// A keyring whose key file is `path`.
private func keyring(_ path: String) -> Keyring {
    var environment = ProcessInfo.processInfo.environment
    environment["TASKCAL_KEY_FILE"] = path
    environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
    return Keyring(environment: environment)
}

private func privateEntry() -> TaskRecord {
    var record = TaskRecord(
        id: 0, dateStart: 1_796_112_000, dateFinish: 1_796_115_600, name: "Therapist Weiss",
        description: "talk about sleep",
        alarms: [
            Alarm(
                action: .email, trigger: .relative("-PT1H", fromEnd: false),
                description: "bring the letter", summary: "Weiss", attendees: ["mailto:me@x.org"])
        ])
    record.classification = .confidential
    record.location = "Praxis, Hauptstraße 1"
    record.categories = ["health"]
    return record
}

@Suite("ProtectedDiary: sealing over every backend, and what a wrong key or damage gives")
struct ProtectedDiaryTests {
    @Test("a sealed entry is stored as its shell and opened whole", arguments: Backend.allCases)
    func roundTrip(backend: Backend) throws {
        let (base, cleanUp) = try backend.makeStore()
        defer { cleanUp() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let keys = keyring(folder.appendingPathComponent("k").path)
        let writer = ProtectedDiary(base, keyring: keys)
        _ = try writer.initialize(keeper: .keyFile)
        let added = try writer.add(privateEntry())
        #expect(added.name == TaskRecord.sealedName)
        #expect(added.isSealed && added.isBareShell)
        // Underneath: the shell only, with the alarm's timing.
        let stored = try base.entry(added.id)
        #expect(stored.description == nil && stored.location == nil && stored.categories.isEmpty)
        #expect(stored.alarms.map(\.trigger) == [.relative("-PT1H", fromEnd: false)])
        #expect(stored.alarms.first?.description == nil && stored.alarms.first?.summary == nil)
        #expect(!stored.jsonLine.contains("Weiss") && !stored.jsonLine.contains("Praxis"))
        // Opened: the record as it was given.
        let reader = ProtectedDiary(base, keyring: keys, reveal: true)
        var expected = privateEntry()
        expected.id = added.id
        expected.uid = added.uid
        #expect(try reader.entry(added.id) == expected)
        #expect(try reader.entries(from: nil, to: nil, search: "weiss").map(\.id) == [added.id])
        #expect(try writer.entries(from: nil, to: nil, search: "weiss").isEmpty)
    }

    @Test("a wrong key and a changed text are refused, never opened to garbage")
    func wrongKeyAndDamage() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "protected-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = try StoreLocation.sqlite(folder.appendingPathComponent("d.sqlite").path).open()
        let diary = ProtectedDiary(base, keyring: keyring(folder.appendingPathComponent("k").path))
        _ = try diary.initialize(keeper: .keyFile)
        let sealed = try diary.add(privateEntry())
        let key = try diary.key()
        let other = try DiaryKey.generate()

        // Another key: told apart by its id.
        #expect(throws: DiaryError.self) { try other.unseal(sealed) }
        // Another key that claims to be the diary's (the id in the text changed): AES-GCM's
        // authentication fails.
        let parts = sealed.sealedText!.split(separator: ":").map(String.init)
        var forged = sealed
        forged.icalExtra = [
            "\(TaskRecord.sealedProperty):\(parts[0]):\(other.id):\(parts[2])"
        ]
        do {
            _ = try other.unseal(forged)
            Issue.record("a text sealed with another key was opened")
        } catch {
            #expect(error.description.contains("fails authentication"), "\(error)")
        }
        // One byte of the ciphertext changed.
        var bytes = Data(base64Encoded: parts[2])!
        bytes[bytes.count / 2] ^= 0x01
        var damaged = sealed
        damaged.icalExtra = [
            "\(TaskRecord.sealedProperty):\(parts[0]):\(parts[1]):\(bytes.base64EncodedString())"
        ]
        do {
            _ = try key.unseal(damaged)
            Issue.record("a damaged text was opened")
        } catch {
            #expect(error.description.contains("fails authentication"), "\(error)")
        }
        // The untouched text opens.
        #expect(try key.unseal(sealed).name == "Therapist Weiss")
    }

    @Test("a shell edited without the key keeps its text; text given is sealed over it")
    func editsWithoutKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "protected-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let base = try StoreLocation.vdir(folder.path + "/diary").open()
        let keyPath = folder.appendingPathComponent("k").path
        _ = try ProtectedDiary(base, keyring: keyring(keyPath)).initialize(keeper: .keyFile)
        let locked = ProtectedDiary(
            base, keyring: keyring(folder.appendingPathComponent("none").path))
        let added = try ProtectedDiary(base, keyring: keyring(keyPath)).add(privateEntry())
        var moved = try locked.entry(added.id)
        moved.dateFinish += 900
        try locked.update(moved)
        var renamed = try locked.entry(added.id)
        renamed.name = "Dr. Weiss"
        #expect(throws: DiaryError.self) { try locked.update(renamed) }
        try ProtectedDiary(base, keyring: keyring(keyPath)).update(renamed)
        let opened = try ProtectedDiary(base, keyring: keyring(keyPath), reveal: true).entry(
            added.id)
        #expect(opened.name == "Dr. Weiss")
        #expect(opened.description == "talk about sleep")
        #expect(opened.dateFinish == 1_796_115_600 + 900)
        #expect(opened.alarms.first?.description == "bring the letter")
    }
}
