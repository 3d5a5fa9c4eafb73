import Mustache

/// The web UI's mustache templates, as literals (the release binary is linked statically, so no
/// resource bundle to find). Every `{{value}}` is HTML-escaped; `{{{body}}}` is only ever a page
/// these templates rendered.
enum WebTemplates {
    /// The templates by name, parsed once.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in sources {
            // The templates are literals of ours: a parse error is a bug the page tests catch.
            if let template = try? MustacheTemplate(string: text) {
                library.register(template, named: name)
            }
        }
        return library
    }()

    static let sources: [(String, String)] = [
        ("layout", layout), ("result", result), ("strip", strip), ("home", home), ("search", search),
        ("detail", detail), ("favorites", favorites), ("history", history), ("trending", trending), ("error", error),
    ]

    static let layout = """
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="same-origin">
    <title>{{title}} · Seek</title>
    <link rel="stylesheet" href="/static/app.css">
    <script type="module" src="/static/app.js"></script>
    </head>
    <body data-page="{{page}}">
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
    <a class="brand" href="/" aria-label="Seek home">Seek</a>
    <form class="searchform" role="search" action="/search" method="get">
    <input id="q" name="q" type="search" value="{{query}}" placeholder="Search books and GIFs" aria-label="Search books and GIFs" list="suggestions">
    <datalist id="suggestions"></datalist>
    <button type="submit">Search</button>
    </form>
    <nav aria-label="Main">
    <ul>
    <li><a href="/trending"{{#navTrending}} aria-current="page"{{/navTrending}}>Trending</a></li>
    <li><a href="/favorites"{{#navFavorites}} aria-current="page"{{/navFavorites}}>Favourites</a></li>
    <li><a href="/history"{{#navHistory}} aria-current="page"{{/navHistory}}>History</a></li>
    </ul>
    </nav>
    </header>
    <main id="main" tabindex="-1">
    {{{body}}}
    </main>
    <footer class="bottom">
    <p>Seek {{version}} · <kbd>/</kbd> search · arrow keys move through results · <kbd>Enter</kbd> opens one · <a href="/openapi.yaml">API</a></p>
    </footer>
    </body>
    </html>

    """

    /// One result: its id, title, a link to its detail page, its cover through the image route.
    static let result = """
    <li class="result" data-item-id="{{id}}" data-kind="{{kind}}">
    <a class="cover cover-{{kind}}" href="{{href}}" tabindex="-1" aria-hidden="true">{{#hasImage}}<img src="{{imageURL}}" alt="" loading="lazy" decoding="async" width="{{width}}" height="{{height}}">{{/hasImage}}{{^hasImage}}<span class="noimage">{{initial}}</span>{{/hasImage}}</a>
    <div class="info">
    <h2 class="title"><a href="{{href}}">{{title}}</a></h2>
    {{#subtitle}}<p class="subtitle">{{subtitle}}</p>{{/subtitle}}
    <p class="meta">{{#creators}}<span class="creators">{{creators}}</span>{{/creators}}{{#year}}<span class="year">{{year}}</span>{{/year}}</p>
    <p class="sources">{{#sources}}<span class="badge">{{.}}</span>{{/sources}}</p>
    </div>
    <form class="fav-form" method="post" action="/favorites/toggle"><input type="hidden" name="id" value="{{id}}">
    <button type="submit" class="fav" data-favorite-toggle data-id="{{id}}" aria-pressed="{{favorite}}" title="Favourite">
    <span aria-hidden="true">★</span><span class="visually-hidden">Favourite: {{title}}</span></button></form>
    </li>

    """

    /// The provider status strip (SearXNG's engine panel).
    static let strip = """
    <section class="strip" aria-labelledby="strip-title">
    <h2 id="strip-title" class="visually-hidden">Providers</h2>
    <ul id="providers" aria-live="polite">
    {{#outcomes}}<li class="provider" data-provider="{{id}}" data-status="{{status}}"><span class="dot" aria-hidden="true"></span><span class="pname">{{name}}</span> <span class="pstate">{{label}}</span>{{#elapsed}} <span class="ptime">{{elapsed}}</span>{{/elapsed}}{{#until}} <span class="puntil">back at <time datetime="{{until}}">{{untilText}}</time></span>{{/until}}</li>
    {{/outcomes}}
    </ul>
    </section>

    """

    static let home = """
    <section class="hero">
    <h1>Seek</h1>
    <p>Books from Open Library and Aladin, GIFs from GIPHY: one search, every provider at once.</p>
    <p><a href="/trending">See what is trending</a></p>
    </section>
    {{#hasRecent}}
    <section class="recent" aria-labelledby="recent-title">
    <h2 id="recent-title">Recent searches</h2>
    <ul class="chips">{{#recent}}<li><a href="{{href}}">{{query}}</a></li>{{/recent}}</ul>
    </section>
    {{/hasRecent}}

    """

    static let search = """
    <h1 class="visually-hidden">Results for {{query}}</h1>
    {{> strip}}
    <div class="toolbar">
    <p id="count" aria-live="polite">{{countText}}</p>
    <div class="views" role="group" aria-label="Layout">
    <button type="button" data-view="list" aria-pressed="true">List</button>
    <button type="button" data-view="grid" aria-pressed="false">Grid</button>
    </div>
    </div>
    <div id="notices">
    {{#allFailed}}<div class="notice failed" data-all-failed role="alert">
    <h2>No provider answered</h2>
    <p>Every provider failed or was skipped for “{{query}}”:</p>
    <ul>{{#outcomes}}<li><strong>{{name}}</strong>: {{label}}{{#error}} ({{error}}){{/error}}</li>{{/outcomes}}</ul>
    <p>Try again in a minute (a provider that failed often rests for a while), check the network, or search a single provider with a bang such as <code>!ol</code>.</p>
    </div>{{/allFailed}}
    {{#empty}}<div class="notice" data-empty>
    <h2>No results for “{{query}}”</h2>
    <p>Every provider answered, none had a match. Try fewer or other words, check the spelling, or look at <a href="/trending">what is trending</a>.</p>
    </div>{{/empty}}
    </div>
    <ol id="results" class="results" data-query="{{query}}" data-providers="{{providers}}" data-next="{{next}}" data-stream="{{stream}}" data-favorites="{{favoriteIDs}}">
    {{#results}}{{> result}}{{/results}}
    </ol>
    <nav class="pager" aria-label="More results" id="pager">
    {{#nextHref}}<a id="next-page" rel="next" href="{{nextHref}}">Next page</a>{{/nextHref}}
    </nav>

    """

    static let detail = """
    <article class="detail" data-item-id="{{id}}">
    <div class="detail-cover cover-{{kind}}">{{#hasImage}}<img src="{{imageURL}}" alt="Cover of {{title}}" width="{{width}}" height="{{height}}">{{/hasImage}}{{^hasImage}}<span class="noimage">{{initial}}</span>{{/hasImage}}</div>
    <div class="detail-body">
    <h1>{{title}}</h1>
    {{#subtitle}}<p class="subtitle">{{subtitle}}</p>{{/subtitle}}
    <p class="meta">{{#creators}}<span class="creators">{{creators}}</span>{{/creators}}{{#year}}<span class="year">{{year}}</span>{{/year}}</p>
    <form class="fav-form" method="post" action="/favorites/toggle"><input type="hidden" name="id" value="{{id}}">
    <p><button type="submit" class="fav fav-wide" data-favorite-toggle data-id="{{id}}" aria-pressed="{{favorite}}"><span aria-hidden="true">★</span> Favourite</button></p></form>
    {{#description}}<section aria-labelledby="d-desc"><h2 id="d-desc">Description</h2><p class="description">{{description}}</p></section>{{/description}}
    <section aria-labelledby="d-sources"><h2 id="d-sources">Sources</h2>
    <ul class="source-list">{{#sources}}<li><a href="{{href}}">{{name}}</a> <code>{{id}}</code>{{#url}} · <a href="{{url}}" rel="noopener noreferrer external">on {{name}}</a>{{/url}}</li>{{/sources}}</ul>
    </section>
    {{#hasIdentifiers}}<section aria-labelledby="d-ids"><h2 id="d-ids">Identifiers</h2>
    <dl class="pairs">{{#identifiers}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/identifiers}}</dl></section>{{/hasIdentifiers}}
    {{#hasFacts}}<section aria-labelledby="d-facts"><h2 id="d-facts">Details</h2>
    <dl class="pairs">{{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/facts}}</dl></section>{{/hasFacts}}
    {{#hasProvenance}}<section aria-labelledby="d-prov"><h2 id="d-prov">Where each field came from</h2>
    <table class="provenance"><thead><tr><th scope="col">Field</th><th scope="col">Provider</th></tr></thead>
    <tbody>{{#provenance}}<tr><td>{{field}}</td><td>{{provider}}</td></tr>{{/provenance}}</tbody></table></section>{{/hasProvenance}}
    {{#hasFailures}}<section class="notice" aria-labelledby="d-fail"><h2 id="d-fail">Sources that did not answer</h2><ul>{{#failures}}<li>{{.}}</li>{{/failures}}</ul></section>{{/hasFailures}}
    </div>
    </article>

    """

    static let favorites = """
    <h1>Favourites</h1>
    <p class="lead">Kept with a snapshot of each: the list shows even when a provider is down.</p>
    {{^results}}<div class="notice" data-empty><h2>No favourites yet</h2><p>Press the star on a result to keep it here.</p></div>{{/results}}
    <ol id="results" class="results grid">
    {{#results}}{{> result}}{{/results}}
    </ol>

    """

    static let history = """
    <h1>History</h1>
    {{^entries}}<div class="notice" data-empty><h2>No searches yet</h2><p>What you search for is listed here.</p></div>{{/entries}}
    {{#hasEntries}}
    <ol class="history-list">
    {{#entries}}<li><a href="{{href}}">{{query}}</a> <span class="muted">{{providers}} · <time datetime="{{when}}">{{whenText}}</time></span></li>{{/entries}}
    </ol>
    <p><button type="button" data-clear-history>Clear history</button></p>
    {{/hasEntries}}

    """

    static let trending = """
    <h1>Trending</h1>
    {{> strip}}
    {{^results}}<div class="notice" data-empty><h2>Nothing trending</h2><p>No provider had trending items just now. Try again later.</p></div>{{/results}}
    <ol id="results" class="results grid trending">
    {{#results}}{{> result}}{{/results}}
    </ol>

    """

    static let error = """
    <div class="notice failed" role="alert"{{#limited}} data-rate-limited{{/limited}}>
    <h1>{{heading}}</h1>
    <p>{{message}}</p>
    <p><a href="/">Back to the search</a></p>
    </div>

    """
}
