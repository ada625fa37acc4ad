import FuzzSupport
import TaskConversion

/// The .ics reader to records (and the records written back), leniently and with --strict.
@_cdecl("FuzzICS_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?)
    -> CInt
{
    FuzzDriver.run(argc, argv) { bytes in
        var options = ReadOptions(floatingZone: "UTC")
        FuzzDriver.readAndWrite(bytes, format: .ics, options: options)
        options.strict = true
        FuzzDriver.readAndWrite(bytes, format: .ics, options: options)
    }
}
