import Foundation
import SeekLoopback

/// Stand-ins for the sources that need no key (Crossref, Project Gutenberg). Every search made without
/// `--providers` calls them, so a test environment points them at its fixture server, which answers
/// with nothing found: no test ever reaches for the internet, and a search where only the keyless
/// sources answer still succeeds.
public enum KeylessStandIns {
    /// The fixture server paths the stand-ins answer under.
    public static let crossrefPath = "/crossref"
    public static let gutendexPath = "/gutendex"

    /// Crossref's answer to a search that found nothing.
    public static let crossrefNothing = #"{"status":"ok","message-type":"work-list","message":{"total-results":0,"items":[]}}"#
    /// Gutendex's answer to a search that found nothing (its requests end in a slash: `/books/?search=`).
    public static let gutendexNothing = #"{"count":0,"next":null,"previous":null,"results":[]}"#

    /// The variables that point the keyless sources at `server`.
    public static func environment(_ server: FixtureServer) -> [String: String] {
        [
            "SEEK_CROSSREF_URL": server.url(crossrefPath).absoluteString,
            "SEEK_GUTENDEX_URL": server.url(gutendexPath).absoluteString,
        ]
    }

    /// Makes `server` answer the keyless sources' searches (and Gutendex's trending) with nothing found.
    public static func serveNothing(on server: FixtureServer) {
        server.route(crossrefPath + "/works", .json(crossrefNothing))
        server.route(gutendexPath + "/books/", .json(gutendexNothing))
    }

    /// Whether `request` is one of the keyless sources' (so a test counting its own provider's calls can
    /// leave them out).
    public static func isStandInRequest(_ request: RecordedRequest) -> Bool {
        request.path.hasPrefix(crossrefPath + "/") || request.path.hasPrefix(gutendexPath + "/")
    }
}
