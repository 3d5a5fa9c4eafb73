#!/usr/bin/env python3
"""Builds Benchmarks/Identity/labelled.json, the labelled set of issue 48, from recorded responses only.

    python3 Benchmarks/Identity/make_set.py [FIXTURES_DIR] [OUT]

FIXTURES_DIR defaults to ../shared/fixtures (relative to the package), plus each provider's Demo/ folder.
Records are extracted as a source gives them (title, subtitle, creators, year, ISBNs, type, language,
typed identifiers); pairs are labelled `same`/`different` for both groupings (`work`, `edition`) with a
reason. Fixtures share few books across sources, so most `same` pairs pair a real record with a variant
derived from it the way another source spells it (`derived` names the transformation); the notes in the
output say which pairs are derived. Deterministic: the same fixtures give the same file.
"""
import glob
import json
import os
import random
import re
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "fixtures")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "Benchmarks", "Identity", "labelled.json")
rng = random.Random(48)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def year_of(text):
    match = re.search(r"(1[5-9]\d\d|20\d\d)", str(text or ""))
    return int(match.group(1)) if match else None


def isbn13(raw):
    digits = re.sub(r"[^0-9Xx]", "", raw or "").upper()
    if len(digits) == 13 and digits.isdigit():
        total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits[:12]))
        return digits if (10 - total % 10) % 10 == int(digits[12]) else None
    if len(digits) == 10:
        body = "978" + digits[:9]
        total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
        return body + str((10 - total % 10) % 10)
    return None


def isbns(values):
    out = []
    for value in values or []:
        for part in str(value).split():
            thirteen = isbn13(part)
            if thirteen and thirteen not in out:
                out.append(thirteen)
    return out


LANGS = {"eng": "en", "spa": "es", "ger": "de", "fre": "fr", "dan": "da", "kor": "ko", "jpn": "ja", "chi": "zh", "por": "pt",
         "pol": "pl", "rus": "ru", "ita": "it", "dut": "nl"}


def lang(code):
    if not code:
        return None
    code = code.split("/")[-1].lower()
    return LANGS.get(code, code[:2])


records = {}


def add(source, ident, title, subtitle=None, creators=(), year=None, isbn_list=(), kind="book", language=None, other=None, origin=""):
    if not title:
        return None
    key = f"{source}:{ident}"
    if key in records:
        return records[key]
    record = {"key": key, "source": source, "id": str(ident), "title": title, "subtitle": subtitle or None,
              "creators": [c for c in creators if c], "year": year, "isbns": list(isbn_list), "type": kind,
              "language": language, "identifiers": other or {}, "origin": origin}
    records[key] = record
    return record


def strip_tags(text):
    return re.sub(r"<[^>]+>", "", text or "")


def aladin_authors(text):
    names = []
    for part in (text or "").split(","):
        role = re.search(r"\(([^)]*)\)", part)
        if role and any(word in role.group(1) for word in ("옮긴이", "번역", "그림", "감수", "엮은이", "사진")):
            continue
        name = re.sub(r"\([^)]*\)", "", part).strip()
        if name:
            names.append(name)
    return names


def extract():
    folders = [FIXTURES] + sorted(glob.glob(os.path.join(ROOT, "Providers", "*", "Demo")))
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "**", "*.json"), recursive=True)):
            name = os.path.relpath(path, folder)
            try:
                data = load(path)
            except (ValueError, UnicodeDecodeError):
                continue
            origin = name
            if "openlibrary" in path or "OpenLibrary" in path:
                for doc in data.get("docs", []) if isinstance(data, dict) else []:
                    ident = (doc.get("key") or "").split("/")[-1]
                    languages = doc.get("language") or []
                    other = {}
                    if ident.startswith("OL") and ident.endswith("W"):
                        other["openlibraryWork"] = ident
                    if doc.get("oclc"):
                        other["oclc"] = doc["oclc"][0]
                    add("openlibrary", ident, doc.get("title"), doc.get("subtitle"), doc.get("author_name") or [],
                        doc.get("first_publish_year"), isbns(doc.get("isbn")), "work",
                        lang(languages[0]) if len(languages) == 1 else None, other, origin)
                for entry in data.get("entries", []) if isinstance(data, dict) else []:
                    ident = (entry.get("key") or "").split("/")[-1]
                    by = (entry.get("by_statement") or "").split(";")[0].strip().rstrip(".")
                    works = entry.get("works") or [{}]
                    languages = entry.get("languages") or []
                    other = {"openlibraryEdition": ident}
                    if works[0].get("key"):
                        other["openlibraryWork"] = works[0]["key"].split("/")[-1]
                    add("openlibrary", ident, entry.get("title"), entry.get("subtitle"), [by] if by else [],
                        year_of(entry.get("publish_date")), isbns((entry.get("isbn_13") or []) + (entry.get("isbn_10") or [])),
                        "edition", lang(languages[0]["key"]) if len(languages) == 1 else None, other, origin)
            elif "googlebooks" in path:
                items = data.get("items", []) if isinstance(data, dict) else []
                if isinstance(data, dict) and "volumeInfo" in data:
                    items = [data]
                for item in items:
                    info = item.get("volumeInfo", {})
                    ids = [i.get("identifier") for i in info.get("industryIdentifiers", []) if i.get("type", "").startswith("ISBN")]
                    add("googlebooks", item.get("id"), info.get("title"), info.get("subtitle"), info.get("authors") or [],
                        year_of(info.get("publishedDate")), isbns(ids), "book", info.get("language"), {}, origin)
            elif "aladin" in path or "Aladin" in path:
                for item in data.get("item", []) if isinstance(data, dict) else []:
                    add("aladin", item.get("itemId") or item.get("isbn13"), item.get("title"), None, aladin_authors(item.get("author")),
                        year_of(item.get("pubDate")), isbns([item.get("isbn13"), item.get("isbn")]), "book", "ko", {}, origin)
            elif "kakao" in path:
                for doc in data.get("documents", []) if isinstance(data, dict) else []:
                    add("kakao", (doc.get("isbn") or doc.get("url", "")).split()[-1] if doc.get("isbn") else doc.get("url"),
                        doc.get("title"), None, doc.get("authors") or [], year_of(doc.get("datetime")), isbns([doc.get("isbn")]),
                        "book", None, {}, origin)
            elif "naver" in path:
                for item in data.get("items", []) if isinstance(data, dict) else []:
                    authors = [a.strip() for a in strip_tags(item.get("author")).split("^") if a.strip()]
                    add("naver", item.get("isbn") or item.get("link"), strip_tags(item.get("title")), None, authors,
                        year_of(item.get("pubdate")), isbns([item.get("isbn")]), "book", None, {}, origin)
            elif "crossref" in path:
                message = data.get("message", {}) if isinstance(data, dict) else {}
                items = message.get("items", []) if isinstance(message, dict) else []
                if isinstance(message, dict) and "DOI" in message:
                    items = [message]
                for item in items:
                    kind = item.get("type") or "book"
                    part = kind in ("book-chapter", "book-section", "book-part", "reference-entry", "book-track")
                    authors = [" ".join(x for x in (a.get("given"), a.get("family")) if x) for a in item.get("author", [])]
                    parts = ((item.get("issued") or {}).get("date-parts") or [[None]])[0]
                    doi = (item.get("DOI") or "").lower()
                    other = {"doi": doi, "type": kind}
                    if part and item.get("ISBN"):
                        other["containerISBN"] = item["ISBN"][0]
                    add("crossref", doi, (item.get("title") or [None])[0], (item.get("subtitle") or [None])[0], authors,
                        parts[0] if parts else None, [] if part else isbns(item.get("ISBN")), kind, item.get("language"), other, origin)
            elif "gutendex" in path:
                for book in data.get("results", []) if isinstance(data, dict) else []:
                    names = [re.sub(r"\s*\([^)]*\)", "", a.get("name", "")) for a in book.get("authors", [])]
                    languages = book.get("languages") or []
                    add("gutendex", book.get("id"), book.get("title"), None, names, None, [], "book",
                        languages[0] if len(languages) == 1 else None, {}, origin)


# ---------------------------------------------------------------- variants

def check_digit(body):
    total = sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body))
    return str((10 - total % 10) % 10)


def new_isbn():
    body = "979" + "".join(str(rng.randrange(10)) for _ in range(9))
    return body + check_digit(body)


def compact_initials(name):
    # "J. R. R. Tolkien" → "J.R.R. Tolkien"
    return re.sub(r"\b([A-Z])\. (?=[A-Z]\.)", r"\1.", name)


def inverted(name):
    if "," in name or not re.search(r"[A-Za-z]", name):
        return name
    words = name.split()
    if len(words) < 2:
        return name
    return f"{words[-1]}, {' '.join(words[:-1])}"


def ascii_folded(text):
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def variant(base, source, suffix, **changes):
    record = dict(base)
    record.update(changes)
    record["source"] = source
    record["id"] = base["id"] + "~" + suffix
    record["key"] = f"{source}:{record['id']}"
    record["identifiers"] = dict(changes.get("identifiers", {}))
    record["origin"] = f"derived from {base['key']} ({suffix})"
    records[record["key"]] = record
    return record


pairs = []


def pair(a, b, work, edition, reason, derived=None):
    pairs.append({"a": a["key"], "b": b["key"], "work": "same" if work else "different",
                  "edition": "same" if edition else "different", "reason": reason, "derived": derived})


OTHER_SOURCE = {"openlibrary": "googlebooks", "googlebooks": "openlibrary", "aladin": "kakao", "kakao": "naver",
                "naver": "aladin", "crossref": "googlebooks", "gutendex": "openlibrary"}


def is_korean(text):
    return bool(re.search(r"[\uac00-\ud7a3]", text or ""))


def main():
    extract()
    real = [r for r in records.values() if r["type"] not in ("book-chapter", "reference-entry", "book-section", "book-part")
            and r["type"] not in ("journal-article", "dataset", "posted-content", "proceedings-article")]
    real.sort(key=lambda r: r["key"])

    # 1. Real pairs across sources sharing an ISBN-13: the same book (a part never shares its container's).
    by_isbn = {}
    for record in records.values():
        for number in record["isbns"]:
            by_isbn.setdefault(number, []).append(record)
    seen = set()
    for number, group in sorted(by_isbn.items()):
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a["source"] == b["source"] or (a["key"], b["key"]) in seen:
                    continue
                seen.add((a["key"], b["key"]))
                pair(a, b, True, True, f"same ISBN {number} in two sources' records")

    # 2. Variants of real records as another source spells them: the same book.
    chosen = [r for r in real if r["creators"] and r["title"]]
    rng.shuffle(chosen)
    for base in chosen[:170]:
        other = OTHER_SOURCE.get(base["source"], "googlebooks")
        style = rng.randrange(5)
        if is_korean(base["title"]):
            if style % 2 == 0:
                v = variant(base, other, "subtitle", title=base["title"] + " - 개정판 리커버 에디션", isbns=[],
                            creators=[c + " (지은이)" for c in base["creators"]])
                pair(base, v, True, True, "Korean title with an Aladin-style subtitle after ' - ' and roles in brackets", "aladin style")
            else:
                v = variant(base, other, "spaced", title=base["title"].replace(" ", "  "), isbns=[], creators=base["creators"][:1])
                pair(base, v, True, True, "the same Korean record with only its first author and no ISBN", "first author only")
            continue
        if style == 0:
            v = variant(base, other, "initials", creators=[compact_initials(c) for c in base["creators"]], isbns=[])
            pair(base, v, True, True, "the same record with initials written together and no ISBN", "compact initials")
        elif style == 1:
            v = variant(base, other, "inverted", creators=[inverted(c) for c in base["creators"]], isbns=[],
                        title=base["title"].upper())
            pair(base, v, True, True, "names as 'Family, Given' and the title in capitals, no ISBN", "catalogue style")
        elif style == 2:
            sub = base["subtitle"] or "A Novel"
            v = variant(base, other, "subtitle", title=f"{base['title']}: {sub}", subtitle=None, isbns=[])
            pair(base, v, True, True, "the subtitle written into the title after ':', no ISBN", "subtitle in title")
        elif style == 3:
            v = variant(base, other, "folded", title=ascii_folded(base["title"]), creators=[ascii_folded(c) for c in base["creators"]],
                        isbns=[])
            pair(base, v, True, True, "diacritics dropped, no ISBN", "ascii folded")
        else:
            if base["year"]:
                v = variant(base, other, "edition", year=base["year"] + rng.choice([3, 8, 15, 27]), isbns=[new_isbn()],
                            creators=[compact_initials(c) for c in base["creators"]])
                edition_same = not base["isbns"] and False
                pair(base, v, True, edition_same, "a later edition of the work with its own ISBN", "later edition")
            else:
                v = variant(base, other, "plain", isbns=[])
                pair(base, v, True, True, "the same record without an ISBN", "no ISBN")

    # 3. Series volumes: "Vol. 2" never "Vol. 3"; a volume never the whole.
    for base in chosen[170:215]:
        other = OTHER_SOURCE.get(base["source"], "googlebooks")
        korean = is_korean(base["title"])
        two = variant(base, base["source"], "v2", title=base["title"] + (" 2권" if korean else ", Vol. 2"), isbns=[])
        three = variant(base, other, "v3", title=base["title"] + (" 3권" if korean else " Volume III"), isbns=[])
        pair(two, three, False, False, "volume 2 and volume 3 of one series", "volumes")
        pair(base, three, False, False, "a whole work and one of its volumes", "volumes")
        two_again = variant(base, other, "v2b", title=base["title"] + (" 제2권" if korean else " Vol. II"), isbns=[])
        pair(two, two_again, True, True, "volume 2 written two ways", "volumes")

    # 4. Box sets never join one volume.
    for base in chosen[215:245]:
        other = OTHER_SOURCE.get(base["source"], "googlebooks")
        box = variant(base, other, "box", title=base["title"] + rng.choice([" Box Set", " Boxed Set", " 1-3", ": The Complete Collection"]),
                      isbns=[new_isbn()])
        pair(base, box, False, False, "a box set and one volume", "box set")

    # 5. Translations with the same title: different books, unless an identifier says otherwise.
    for base in chosen[245:275]:
        if is_korean(base["title"]):
            continue
        other = OTHER_SOURCE.get(base["source"], "googlebooks")
        language = "de" if (base["language"] or "en") != "de" else "fr"
        translated = variant(base, other, "translation", identifiers={"language": language}, isbns=[new_isbn()])
        source_language = base["language"] or "en"
        based = variant(base, base["source"], "lang", identifiers={"language": source_language}, isbns=base["isbns"])
        pair(based, translated, False, False, f"a {language} translation with the same title", "translation")

    # 6. Same title, another author.
    authors = [r for r in real if r["creators"]]
    for base in chosen[275:325]:
        stranger = rng.choice(authors)
        if stranger["creators"] == base["creators"] or set(c.split()[-1] for c in stranger["creators"]) & set(c.split()[-1] for c in base["creators"]):
            continue
        other = OTHER_SOURCE.get(base["source"], "googlebooks")
        v = variant(base, other, "otherauthor", creators=stranger["creators"], isbns=[])
        pair(base, v, False, False, "the same title by another author", "other author")

    # 7. Generic titles: one author's "Poems" of other years are other collections.
    for base in chosen[325:345]:
        if not base["year"]:
            continue
        title = rng.choice(["Poems", "Selected Poems", "Introduction", "Essays", "Collected Stories", "Letters", "시집"])
        a = variant(base, base["source"], "generic", title=title, subtitle=None, isbns=[])
        b = variant(base, OTHER_SOURCE.get(base["source"], "googlebooks"), "generic2", title=title, subtitle=None, isbns=[],
                    year=base["year"] + rng.choice([6, 11, 30]))
        pair(a, b, False, False, f"'{title}' by one author, years apart: another collection", "generic title")
        c = variant(base, OTHER_SOURCE.get(base["source"], "googlebooks"), "generic3", title=title, subtitle=None, isbns=[],
                    creators=[inverted(x) for x in base["creators"]])
        pair(a, c, True, True, f"'{title}' by one author in the same year, names inverted", "generic title")

    # 8. Real hard pairs found in the recordings, labelled by hand (by key).
    def get(key):
        return records.get(key)
    manual = [
        ("openlibrary:OL2747782W", "openlibrary:OL2949201W", False, False, "'Capitalism and Freedom' by Friedman and by Nolan"),
        ("openlibrary:OL2747782W", "openlibrary:OL7362774W", False, False, "'Capitalism and Freedom' by Friedman and by Selden"),
        ("openlibrary:OL2949201W", "openlibrary:OL7362774W", False, False, "'Capitalism and Freedom' by Nolan and by Selden"),
        ("openlibrary:OL1953993W", "openlibrary:OL4917430W", True, False, "Howell's 'Freedom and Capital', names inverted, 1981/1982 editions"),
        ("openlibrary:OL27448W", "openlibrary:OL27516W", False, False, "The Lord of the Rings and its volume The Return of the King"),
        ("openlibrary:OL27448W", "openlibrary:OL262757W", False, False, "The Lord of the Rings and its volume The Two Towers"),
        ("openlibrary:OL27448W", "openlibrary:OL15331214W", False, False, "The Lord of the Rings and The Fellowship of the Ring"),
        ("openlibrary:OL27516W", "openlibrary:OL262757W", False, False, "two volumes of The Lord of the Rings"),
        ("openlibrary:OL27448W", "openlibrary:OL265321W", False, False, "The Lord of the Rings and its boxed set"),
        ("openlibrary:OL27448W", "openlibrary:OL9085720W", False, False, "The Lord of the Rings and 'The Lord of the Rings Trilogy' set"),
        ("openlibrary:OL27448W", "openlibrary:OL27453W", False, False, "The Lord of the Rings and 'Poems from The lord of the rings'"),
        ("openlibrary:OL27448W", "openlibrary:OL14926004W", False, False, "The Lord of the Rings and The History of the Lord of the Rings"),
        ("openlibrary:OL27448W", "openlibrary:OL14933438W", True, False, "The Lord of the Rings and its Spark Notes edition note in brackets"),
        ("openlibrary:OL27448W", "openlibrary:OL14933439W", True, False, "'Lord of the Rings, the': a catalogue's inverted article"),
        ("openlibrary:OL27448W", "openlibrary:OL14933440W", False, False, "The Lord of the Rings and 'The Lord of the Rings and The Hobbit'"),
        ("gutendex:1400", "gutendex:8608", True, True, "two Project Gutenberg files of Great Expectations"),
    ]
    for a, b, work, edition, reason in manual:
        if get(a) and get(b):
            pair(get(a), get(b), work, edition, reason)
    # Naver's untitled-author 'Harry' books: different books, whatever the year.
    harries = [r for r in records.values() if r["source"] == "naver" and r["title"] == "Harry"]
    for i, a in enumerate(harries):
        for b in harries[i + 1:]:
            same_date = a["year"] == b["year"] and a["isbns"][0][:11] == b["isbns"][0][:11]
            if not same_date:
                pair(a, b, False, False, "two books titled 'Harry' without authors")
    # Kakao's Korean Harry Potter volumes: other volumes, other books.
    kakao = {r["title"]: r for r in records.values() if r["source"] == "kakao"}
    phoenix = kakao.get("해리포터(Harry Potter): 불사조 기사단. 1(양장본 HardCover)")
    stone = kakao.get("해리포터: 마법사의 돌. 2")
    box = kakao.get("해리포터 Harry Potter Paperback Boxset #1-7")
    if phoenix and stone:
        pair(phoenix, stone, False, False, "two volumes of two Harry Potter books in Korean")
        stone1 = variant(stone, "aladin", "vol1", title="해리포터: 마법사의 돌. 1", isbns=[])
        pair(stone, stone1, False, False, "volume 2 and volume 1 of the Korean Philosopher's Stone", "volumes")
        stone2 = variant(stone, "aladin", "vol2", title="해리포터: 마법사의 돌 2", isbns=[], creators=["조앤 K. 롤링 (지은이)"])
        pair(stone, stone2, True, True, "the Korean Philosopher's Stone volume 2, spelt as Aladin would", "aladin style")
    google = {r["title"]: r for r in records.values() if r["source"] == "googlebooks"}
    collection = google.get("Harry Potter: The Complete Collection (1-7)")
    goblet = google.get("Harry Potter and the Goblet of Fire")
    if box and collection:
        pair(box, collection, True, False, "two sets of all seven Harry Potter books (paperback box, e-book collection)")
    if goblet and collection:
        pair(goblet, collection, False, False, "one Harry Potter book and the complete collection")
    # Korean translations vs English originals: different books (titles differ too).
    sorcerer = kakao.get("Harry Potter and the Sorcerer's Stone")
    if sorcerer and stone:
        pair(sorcerer, stone, False, False, "the English Sorcerer's Stone and a Korean translation's volume")
    # Crossref's chapter trap: two entries of one reference work share its ISBN.
    entries = [r for r in records.values() if r["source"] == "crossref" and r["identifiers"].get("containerISBN") == "9780199830060"]
    container = add("googlebooks", "oxford-ecology", "Ecology", "Oxford Bibliographies", ["David Gibson"], 2012, ["9780199830060"], "book",
                    "en", {}, "derived: the reference work the Crossref entries belong to, as Google Books would list it")
    for i, a in enumerate(entries):
        for b in entries[i + 1:]:
            pair(a, b, False, False, "two Crossref entries of one reference work, sharing its ISBN")
        pair(a, container, False, False, "a Crossref entry and the book that contains it (its container's ISBN)", "container")
    chapters = [r for r in records.values() if r["source"] == "crossref" and r["type"] == "book-chapter"]
    for i, a in enumerate(chapters):
        for b in chapters[i + 1:i + 3]:
            if a["identifiers"].get("containerISBN") and a["identifiers"].get("containerISBN") == b["identifiers"].get("containerISBN"):
                pair(a, b, False, False, "two chapters of one book, sharing its ISBN")
    # Editions of Neuromancer (Open Library editions of one work): one work, other editions.
    neuromancers = [r for r in records.values() if r["title"] == "Neuromancer" and r["source"] == "openlibrary" and r["type"] == "edition"]
    for i, a in enumerate(neuromancers[:6]):
        for b in neuromancers[i + 1:6]:
            va = variant(b, "googlebooks", "edition-of-" + a["id"], identifiers={}, creators=["Gibson, William"])
            if a["language"] != b["language"]:
                pair(a, va, False, False, f"Neuromancer in {a['language']} and a {b['language']} translation", "other source")
            else:
                close = a["year"] is not None and va["year"] is not None and abs(a["year"] - va["year"]) <= 1
                pair(a, va, True, not (a["isbns"] and va["isbns"]) and close,
                     "two editions of Neuromancer (Open Library edition and another source's)", "other source")
    # Easy negatives: random records of different sources.
    for _ in range(60):
        a, b = rng.sample(real, 2)
        if a["source"] == b["source"] or a["title"].lower() == b["title"].lower():
            continue
        pair(a, b, False, False, "two unrelated records")

    used = {p["a"] for p in pairs} | {p["b"] for p in pairs}
    out = {
        "notes": ("Issue 48's labelled set. Records come from the recorded responses in ../shared/fixtures and the providers' Demo "
                  "recordings only (`origin` names the file). Pairs whose `derived` is set pair a real record with a variant derived "
                  "from it the way another source spells it (initials, inverted names, subtitles, diacritics, volumes, box sets, "
                  "translations, other authors, generic titles), because the fixtures share few books across sources; the rest "
                  "pair real records. `work` and `edition` label each pair under the two groupings. Built by "
                  "Benchmarks/Identity/make_set.py."),
        "records": [records[key] for key in sorted(used)],
        "pairs": pairs,
    }
    with open(OUT, "w", encoding="utf-8") as handle:
        json.dump(out, handle, ensure_ascii=False, indent=1, sort_keys=True)
    sources = {records[key]["source"] for key in used}
    same = sum(p["work"] == "same" for p in pairs)
    print(f"{len(pairs)} pairs ({same} same under work), {len(used)} records, sources: {', '.join(sorted(sources))}; "
          f"{sum(1 for p in pairs if p['derived'])} derived")


if __name__ == "__main__":
    main()
