import FuzzSupport
import TaskConversion

/// The JSON, NDJSON, jCal and JSCalendar readers to records (and the records written back);
/// the times-only reading of reports against the whole one.
@_cdecl("FuzzJSON_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
    -> CInt
{
    FuzzDriver.run(argc, argv) { bytes in
        FuzzDriver.readAndWrite(bytes, format: .json, options: ReadOptions())
        FuzzDriver.readAndWrite(bytes, format: .ndjson, options: ReadOptions())
        FuzzDriver.compareTimesOnly(bytes, format: .json)
        FuzzDriver.compareTimesOnly(bytes, format: .ndjson)
        FuzzDriver.readAndWrite(bytes, format: .jcal, options: ReadOptions())
        FuzzDriver.readAndWrite(bytes, format: .jscalendar, options: ReadOptions())
    }
}
