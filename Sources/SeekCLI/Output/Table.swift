import Foundation
import SeekCore
import SeekKit
import SeekRuntime

/// Plain-text tables that fit a terminal width, truncating cells with "…".
struct Table {
    struct Column {
        let title: String
        /// Fixed width, or nil to share the remaining width.
        let width: Int?
        /// Relative share of the remaining width for flexible columns.
        let share: Int
        init(_ title: String, width: Int? = nil, share: Int = 1) {
            self.title = title
            self.width = width
            self.share = share
        }
    }

    let columns: [Column]
    var rows: [[String]] = []
    /// The width to fill at most: the terminal's (`CLIContext.width`: `COLUMNS`, else the terminal's, else 80).
    var totalWidth = CLIContext.current.width

    init(_ columns: [Column]) { self.columns = columns }

    mutating func add(_ cells: [String]) { rows.append(cells) }

    func render() -> String {
        let widths = widths()
        var lines = [line(columns.map(\.title), widths)]
        lines.append(widths.map { String(repeating: "-", count: $0) }.joined(separator: " "))
        for row in rows { lines.append(line(row, widths)) }
        return lines.joined(separator: "\n")
    }

    /// Each column's width: fixed ones as given; flexible ones share what is left by their shares, but
    /// none wider than its widest cell, its spare width going to the others (the first flexible column
    /// takes what rounding leaves). A wide terminal shows whole titles; a narrow one cuts them.
    func widths() -> [Int] {
        let separators = max(0, columns.count - 1)
        let fixed = columns.compactMap(\.width).reduce(0, +)
        var left = max(columns.count, totalWidth - fixed - separators)
        var widths = columns.map { $0.width ?? 0 }
        var open = columns.indices.filter { columns[$0].width == nil }
        let natural = columns.indices.map { index in
            rows.reduce(Self.displayWidth(columns[index].title)) { widest, row in
                max(widest, index < row.count ? Self.displayWidth(UntrustedText.line(row[index], limit: .max)) : 0)
            }
        }
        // Columns whose content fits in their share take only that; the rest is shared again.
        while !open.isEmpty {
            let shares = open.map { columns[$0].share }.reduce(0, +)
            guard shares > 0 else { break }
            let fitting = open.filter { natural[$0] <= left * columns[$0].share / shares }
            if fitting.isEmpty {
                for index in open { widths[index] = left * columns[index].share / shares }
                let used = open.map { widths[$0] }.reduce(0, +)
                if let first = open.first { widths[first] += left - used }
                break
            }
            for index in fitting {
                widths[index] = natural[index]
                left -= natural[index]
            }
            open.removeAll { fitting.contains($0) }
        }
        return widths
    }

    private func line(_ cells: [String], _ widths: [Int]) -> String {
        var parts: [String] = []
        for (index, width) in widths.enumerated() {
            let cell = index < cells.count ? cells[index] : ""
            parts.append(Self.fit(cell, width: width, padLast: index < widths.count - 1))
        }
        return parts.joined(separator: " ")
    }

    /// The text cut to `width` display columns (with "…"), padded unless it is the last cell.
    static func fit(_ text: String, width: Int, padLast: Bool = true) -> String {
        let clean = UntrustedText.line(text, limit: .max)
        var result = ""
        var used = 0
        let total = displayWidth(clean)
        if total <= width {
            result = clean
            used = total
        } else {
            for character in clean {
                let w = displayWidth(String(character))
                if used + w > width - 1 { break }
                result.append(character)
                used += w
            }
            result.append("…")
            used += 1
        }
        return padLast ? result + String(repeating: " ", count: max(0, width - used)) : result
    }

    /// Terminal columns: East Asian wide characters take two.
    static func displayWidth(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { sum, scalar in
            let value = scalar.value
            if scalar.properties.generalCategory == .nonspacingMark || value == 0x200B { return sum }
            let wide = (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value) || (0xF900...0xFAFF).contains(value)
                || (0xFE30...0xFE4F).contains(value) || (0xFF00...0xFF60).contains(value)
                || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1FAFF).contains(value)
                || (0x20000...0x3FFFD).contains(value)
            return sum + (wide ? 2 : 1)
        }
    }
}
