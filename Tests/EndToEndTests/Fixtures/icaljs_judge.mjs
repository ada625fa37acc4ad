// Thunderbird's reader as a judge: ical.js as the installed `thunderbird` package carries it
// (modules/calendar/Ical.sys.mjs inside omni.ja, taken out by Scripts/app-readers.py, never
// copied into this repository). For each file named on stdin, one line per path on stdout:
//   {"path": PATH, "verdict": "ok" | REASON, "events": N, "todos": N, "journals": N}
// Read as Thunderbird's import reads a file: ICAL.parse of the whole text, the file's
// VTIMEZONEs registered with ICAL.TimezoneService (Thunderbird's own zone service answers the
// IANA names it knows the same way), then an ICAL.Event for every VEVENT with its start, end,
// duration and texts read, each zoned time turned into an instant, and a recurring event's
// first occurrences iterated. A to-do's or journal entry's times are read too.
//
// usage: node icaljs_judge.mjs PATH/TO/ical.mjs  (paths on stdin, one a line)
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const ICAL = (await import(pathToFileURL(process.argv[2]).href)).default;

// An instant of a time as Thunderbird shows it; throws where ical.js cannot place it.
function instant(time) {
  if (time === null || time === undefined) return null;
  const seconds = time.toUnixTime();
  if (!Number.isFinite(seconds)) throw new Error(`a time ical.js cannot place: ${time}`);
  return seconds;
}

function judge(path) {
  const text = readFileSync(path, "utf8");
  const root = new ICAL.Component(ICAL.parse(text));
  const calendars = root.name === "vcalendar" ? [root] : root.getAllSubcomponents("vcalendar");
  // Registered per file, and taken out again after: the next file has its own.
  const registered = [];
  const counts = { events: 0, todos: 0, journals: 0 };
  try {
    for (const calendar of calendars) {
      for (const zone of calendar.getAllSubcomponents("vtimezone")) {
        const tzid = zone.getFirstPropertyValue("tzid");
        if (tzid && !ICAL.TimezoneService.has(tzid)) {
          ICAL.TimezoneService.register(zone);
          registered.push(tzid);
        }
      }
    }
    for (const calendar of calendars) {
      for (const component of calendar.getAllSubcomponents("vevent")) {
        const event = new ICAL.Event(component);
        instant(event.startDate);
        instant(event.endDate);
        void event.duration;
        void [event.summary, event.description, event.location, event.uid];
        void event.attendees.map((a) => a.getFirstValue());
        if (event.isRecurring()) {
          const occurrences = event.iterator();
          for (let n = 0; n < 20; n++) {
            const next = occurrences.next();
            if (!next) break;
            // An RDATE period comes as an ICAL.Period; Thunderbird takes its start.
            const start = next instanceof ICAL.Period ? next.start : next;
            instant(event.getOccurrenceDetails(start).endDate);
          }
        }
        counts.events++;
      }
      for (const [kind, key] of [["vtodo", "todos"], ["vjournal", "journals"]]) {
        for (const component of calendar.getAllSubcomponents(kind)) {
          for (const name of ["dtstart", "due", "completed"]) {
            instant(component.getFirstPropertyValue(name));
          }
          void component.getFirstPropertyValue("summary");
          counts[key]++;
        }
      }
    }
  } finally {
    for (const tzid of registered) ICAL.TimezoneService.remove(tzid);
  }
  return counts;
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const path of lines) {
  if (!path) continue;
  let answer;
  try {
    answer = { path, verdict: "ok", ...judge(path) };
  } catch (error) {
    answer = { path, verdict: `${error.name}: ${String(error.message).slice(0, 120)}` };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
