import ArgumentParser
import Diary
import Foundation
import ICalendar
import Localization
import Reports
import TaskConversion
import TaskModel

/// Pictures on standard output: an SVG file (several pictures one above the other), or one
/// self-contained HTML page.
enum Pictures {
    static func write(
        _ output: ReportOutput, title: String, _ pictures: [Markup], table: [[String]],
        to out: ReportPrinter
    ) throws {
        switch output {
        case .html:
            try out.write(Drawing.htmlPage(title: title, pictures: pictures, table: table))
        default:
            try out.write(Drawing.svgFile(Drawing.stacked(pictures, title: title)))
        }
        try out.finish()
    }
}
