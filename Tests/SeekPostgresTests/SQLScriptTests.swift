import Foundation
@testable import SeekPostgres
import Testing

@Suite("The shared database's SQL files")
struct SQLScriptTests {
    @Test("statements end at a semicolon outside strings, names, dollar-quoted bodies and comments")
    func splits() throws {
        let text = """
            -- a comment; not a statement
            CREATE TABLE t (a text DEFAULT 'x;y', "odd;name" int);
            /* a block; comment */
            CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS $$
            BEGIN
                RETURN 1; -- inside the body
            END $$;
            CREATE FUNCTION g() RETURNS text LANGUAGE sql AS $body$ SELECT 'it''s; $$ here' $body$;
            SELECT $1::int
            """
        let statements = try SQLScript.split(text)
        #expect(statements.count == 4)
        #expect(statements.first?.hasSuffix(#"CREATE TABLE t (a text DEFAULT 'x;y', "odd;name" int)"#) == true)
        #expect(statements.dropFirst().first?.hasSuffix("RETURN 1; -- inside the body\nEND $$") == true)
        #expect(statements.dropFirst(2).first?.hasSuffix("$body$ SELECT 'it''s; $$ here' $body$") == true)
        #expect(statements.last == "SELECT $1::int")
    }

    @Test("a piece of only comments and blanks is no statement")
    func commentsAlone() throws {
        #expect(try SQLScript.split("-- nothing here;\n/* nor; here */ ;\n  ;").isEmpty)
        #expect(try SQLScript.split("").isEmpty)
    }

    @Test("a quote, a comment or a body never closed is an error naming the file", arguments: [
        "SELECT 'open", "SELECT \"open", "/* open", "CREATE FUNCTION f() AS $$ BEGIN",
    ])
    func unclosed(_ text: String) {
        let error = #expect(throws: SQLScriptError.self) { try SQLScript.split(text, path: "SQL/broken.sql") }
        #expect(error?.description.hasPrefix("the shared database's SQL file SQL/broken.sql: ") == true)
    }

    @Test("every migration's files are in the binary and hold statements; the functions are made with CREATE OR REPLACE")
    func migrationsEmbedded() throws {
        #expect(Schema.migrations.map(\.version) == Array(1...Schema.latest))
        for migration in Schema.migrations {
            #expect(try !migration.statements().isEmpty, "migration \(migration.version)")
        }
        #expect(try !SQLScript(embedded: "SQL/schema-table.sql").statements.isEmpty)
        for path in ["SQL/breaker.sql", "SQL/bucket.sql"] {
            let statements = try SQLScript(embedded: path).statements
            #expect(!statements.isEmpty && statements.allSatisfy { $0.contains("CREATE OR REPLACE FUNCTION") }, "\(path)")
        }
        #expect(throws: SQLScriptError.self) { try SQLScript(embedded: "SQL/none.sql") }
    }
}
