import Testing
@testable import SeekPostgres
