@testable import AladinProvider
import Testing

@Suite("Aladin author lines: names and roles")
struct AladinRoleTests {
    @Test("a part's name and role read on bytes are what the scalar reading gives, for 20,000 generated parts")
    func bytesAgreeWithScalars() {
        // Roles in parentheses and trailing, spaces of every kind before a parenthesis, parentheses
        // inside names, and text that is no role.
        let pieces = ["홍길동", " ", "(", ")", "지은이", "옮긴이", "지음", "옮김", "A", "\u{3000}", "\t", "\u{A0}", "·", "글·그림", "남수진", "x y", ""]
        let names = ["홍길동", "새벽달(남수진)", "Margaret Free", "", " 김 "]
        let spaces = [" ", "  ", "\u{3000}", "\t", "\u{A0}", "", "x"]
        let roles = ["(지은이)", "( 옮긴이 )", "(글·그림)", "(Editor)", "()", "지음", "옮김", "(지은이", "지은이)"]
        var state: UInt64 = 30
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var withRole = 0
        for round in 0..<20_000 {
            let part = round % 2 == 0
                ? names[next() % names.count] + spaces[next() % spaces.count] + roles[next() % roles.count]
                : (0..<(1 + next() % 6)).map { _ in pieces[next() % pieces.count] }.joined()
            let bytes = AladinMapping.splitRole(part)
            let scalars = AladinMapping.splitRoleByScalars(part)
            #expect(bytes?.0 == scalars?.0 && bytes?.1 == scalars?.1, "\(part.unicodeScalars.map { $0.value })")
            if scalars != nil { withRole += 1 }
        }
        #expect(withRole > 3_000)
    }

    @Test("a role after a space other than ASCII's is still read", arguments: [
        ("홍길동\u{3000}(지은이)", "홍길동", "지은이"),
        ("홍길동\u{A0}(옮긴이)", "홍길동", "옮긴이"),
        ("홍길동\t(그림)", "홍길동", "그림"),
    ])
    func otherSpaces(part: String, name: String, role: String) {
        let split = AladinMapping.splitRole(part)
        #expect(split?.0 == name && split?.1 == role)
    }
}
