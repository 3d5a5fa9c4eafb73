#!/usr/bin/env python3
"""Issue 49: a generated Calibre library for the speed comparison (BENCHMARKS.md).

Creates DIR/metadata.db from Calibre's own schema (../shared/fixtures/calibre/metadata_sqlite.sql)
with N books of realistic metadata: titles built from English, Korean and French/Spanish word lists
(plus well-known titles), 1-3 authors from a pool of about N/5 names, valid ISBN-13s for most books,
publishers, series, tags, languages, formats and short HTML comments. The functions Calibre's triggers
call (title_sort, uuid4) are stood in for, as the tests do. Deterministic for a given seed.

    python3 Benchmarks/calibre_library.py DIR [--books 100000] [--seed 49] [--covers 0]
"""
import argparse
import os
import random
import sqlite3
import sys
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "shared", "fixtures", "calibre", "metadata_sqlite.sql")

ADJECTIVES = """silent hidden last lost golden dark bright broken secret forgotten burning quiet little great
endless distant wild crimson silver iron glass frozen hollow shining ancient final first second red blue
green black white bitter sweet strange invisible electric northern southern eastern western midnight
summer winter autumn spring""".split()
NOUNS = """river house garden city night road kingdom empire war peace mountain sea island forest shadow
light storm fire stone star moon sun heart mind dream memory letter book library map key door window
bridge tower castle harbor ship voyage journey return song story tale history machine engine code
algorithm theory garden orchard wolf fox raven dragon ghost witch king queen prince daughter son mother
father children stranger traveler stranger physician detective murder mystery secret promise bargain
clock winter silence""".split()
PLACES = """Paris London Rome Seoul Busan Tokyo Prague Vienna Lisbon Cairo Dublin Oslo Kyoto Berlin
Madrid Venice Istanbul Boston Chicago Shanghai""".split()
FAMOUS = [
    "The Lord of the Rings", "The Hobbit", "The Fellowship of the Ring", "The Two Towers",
    "The Return of the King", "Pride and Prejudice", "Moby-Dick", "War and Peace", "Crime and Punishment",
    "The Great Gatsby", "One Hundred Years of Solitude", "Don Quixote", "Les Misérables", "Madame Bovary",
    "The Brothers Karamazov", "Anna Karenina", "Middlemarch", "Ulysses", "Dune", "Neuromancer",
    "The Left Hand of Darkness", "A Wizard of Earthsea", "Foundation", "Harry Potter and the Philosopher's Stone",
]
KO_WORDS = """소년 소녀 바다 하늘 별 달 밤 겨울 여름 봄 가을 바람 강 산 도시 집 길 꿈 기억 편지 노래 이야기
사랑 시간 그림자 빛 섬 숲 나무 꽃 아버지 어머니 아이 친구 왕 나라 전쟁 평화 마음 눈물""".split()
KO_ENDINGS = ["이 온다", "의 노래", "을 찾아서", "에서", "와 나", "의 시간", "는 없다", "의 기억", "", "들"]
FR_ES = """été château mémoire lumière forêt éducation rêve étoile cœur señor niño corazón canción
ciudad camino noche montaña océano""".split()
FIRST = """James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara Richard
Susan Joseph Jessica Thomas Sarah Charles Karen Daniel Nancy Matthew Lisa Anthony Betty Mark Margaret
Ursula Virginia Jorge Gabriel Haruki Fyodor Leo Jane Emily Charlotte Toni Kazuo Chimamanda Orhan Italo
Umberto Jean-Jacques Émile Zoë Søren José Ana""".split()
LAST = """Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez
Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez
Lewis Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker
Hall Rivera Campbell Mitchell Carter Roberts Tolkien Le\u00a0Guin Borges Márquez Murakami Dostoevsky Tolstoy
Austen Brontë Morrison Ishiguro Adichie Pamuk Calvino Eco Rousseau Zola Kierkegaard Saramago""".split()
KO_FAMILY = "김 이 박 최 정 강 조 윤 장 임 한 오 서 신 권 황 안 송 류 홍".split()
KO_GIVEN = "민준 서연 지훈 하은 도윤 지우 현우 수빈 강 은희 영호 미숙 성민 다은 준호 소영 태희 경란".split()
TAGS = """Fiction Fantasy Science\u00a0Fiction Mystery Thriller Romance History Biography Poetry Philosophy
Science Mathematics Computers Programming Travel Cooking Art Music Religion Politics Economics Classics
Children Young\u00a0Adult Horror Essays Drama Humor 소설 에세이 역사 시""".split()
TAGS = list({tag.lower(): tag for tag in TAGS}.values())
PUBLISHERS = [f"{w.capitalize()} {k}" for w in NOUNS[:60] for k in ("Press", "Books", "House")] + [
    "Houghton Mifflin", "Penguin", "Vintage", "Gallimard", "창비", "문학동네", "민음사", "O'Reilly Media"]
FORMATS = ["EPUB", "PDF", "AZW3", "MOBI", "CBZ", "TXT"]
LANGS = ["eng", "kor", "fra", "spa", "deu"]


def isbn13(rng):
    digits = [9, 7, 8 if rng.random() < 0.9 else 9] + [rng.randrange(10) for _ in range(9)]
    check = (10 - sum(d * (1 if i % 2 == 0 else 3) for i, d in enumerate(digits)) % 10) % 10
    return "".join(map(str, digits + [check]))


def title(rng):
    roll = rng.random()
    if roll < 0.01:
        return rng.choice(FAMOUS)
    if roll < 0.12:
        return rng.choice(KO_WORDS) + rng.choice(KO_ENDINGS) + ("" if rng.random() < 0.6 else " " + rng.choice(KO_WORDS))
    if roll < 0.17:
        return f"{rng.choice(FR_ES).capitalize()} {rng.choice(['de', 'del', 'du', 'et', 'y'])} {rng.choice(FR_ES)}"
    pattern = rng.randrange(6)
    a, n, m = rng.choice(ADJECTIVES), rng.choice(NOUNS), rng.choice(NOUNS)
    if pattern == 0:
        return f"The {a.capitalize()} {n.capitalize()}"
    if pattern == 1:
        return f"The {n.capitalize()} of {m.capitalize()}"
    if pattern == 2:
        return f"A {n.capitalize()} in {rng.choice(PLACES)}"
    if pattern == 3:
        return f"{a.capitalize()} {n.capitalize()}s: A {m.capitalize()} of {rng.choice(PLACES)}"
    if pattern == 4:
        return f"The {a.capitalize()} {n.capitalize()} and the {m.capitalize()}"
    return f"{n.capitalize()} {rng.randrange(1, 2000)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory")
    parser.add_argument("--books", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--covers", type=int, default=0, help="write a cover.jpg for this many books")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.directory, exist_ok=True)
    path = os.path.join(args.directory, "metadata.db")
    if os.path.exists(path):
        sys.exit(f"{path} exists; remove it first")
    started = time.time()
    db = sqlite3.connect(path, isolation_level=None)
    db.create_function("title_sort", 1, lambda t: t, deterministic=True)
    db.create_function("uuid4", 0, lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4)))
    db.executescript(open(SCHEMA, encoding="utf-8").read())
    db.execute("BEGIN")
    pool = max(50, args.books // 5)
    authors = []
    for i in range(pool):
        if rng.random() < 0.12:
            authors.append(rng.choice(KO_FAMILY) + rng.choice(KO_GIVEN))
        else:
            authors.append(f"{rng.choice(FIRST)} {rng.choice(LAST)}" + ("" if i < pool // 2 else f" {chr(65 + i % 26)}."))
    authors = list(dict.fromkeys(authors))
    db.executemany("INSERT INTO authors (id, name, sort) VALUES (?, ?, ?)", [(i + 1, a, a) for i, a in enumerate(authors)])
    db.executemany("INSERT INTO tags (id, name) VALUES (?, ?)", [(i + 1, t) for i, t in enumerate(TAGS)])  # TAGS: unique, any case
    publishers = list(dict.fromkeys(PUBLISHERS))
    db.executemany("INSERT INTO publishers (id, name) VALUES (?, ?)", [(i + 1, p) for i, p in enumerate(publishers)])
    db.executemany("INSERT INTO languages (id, lang_code) VALUES (?, ?)", [(i + 1, l) for i, l in enumerate(LANGS)])
    series = [f"The {rng.choice(ADJECTIVES).capitalize()} {rng.choice(NOUNS).capitalize()} Cycle" for _ in range(2000)]
    series = list(dict.fromkeys(series))
    db.executemany("INSERT INTO series (id, name, sort) VALUES (?, ?, ?)", [(i + 1, s, s) for i, s in enumerate(series)])
    books, links, idents, pubs, tags, langs, data, comments, serieslinks = [], [], [], [], [], [], [], [], []
    covers = []
    for book in range(1, args.books + 1):
        t = title(rng)
        who = rng.sample(range(len(authors)), rng.choice([1, 1, 1, 1, 2, 3]))
        first = authors[who[0]]
        folder = f"{first}/{t[:60]} ({book})"
        year = rng.randrange(1800, 2026) if rng.random() < 0.9 else 101
        pubdate = f"{year:04d}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d} 00:00:00+00:00"
        has_cover = 1 if book <= args.covers else 0
        books.append((book, t, t, pubdate, float(rng.randrange(1, 8)), first, folder, has_cover,
                      f"2026-0{rng.randrange(1, 10)}-1{rng.randrange(0, 9)} 12:00:00.{rng.randrange(100000, 999999)}+00:00"))
        if has_cover:
            covers.append(folder)
        links.extend((book, a + 1) for a in who)
        if rng.random() < 0.85:
            idents.append((book, "isbn", isbn13(rng)))
        if rng.random() < 0.3:
            idents.append((book, "google", "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(12))))
        pubs.append((book, rng.randrange(1, len(publishers) + 1)))
        for tag in rng.sample(range(1, len(TAGS) + 1), rng.randrange(0, 4)):
            tags.append((book, tag))
        langs.append((book, 2 if any("\uac00" <= c <= "\ud7a3" for c in t) else rng.choice([1, 1, 1, 3, 4, 5]), 0))
        for fmt in rng.sample(FORMATS, rng.choice([1, 1, 2, 3])):
            data.append((book, fmt, rng.randrange(100_000, 20_000_000), f"{t[:40]} - {first}"))
        if rng.random() < 0.4:
            comments.append((book, f"<div><p>A {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} about {rng.choice(NOUNS)}s &amp; {rng.choice(NOUNS)}s.</p></div>"))
        if rng.random() < 0.08:
            serieslinks.append((book, rng.randrange(1, len(series) + 1)))
    db.executemany("""INSERT INTO books (id, title, sort, pubdate, series_index, author_sort, path, has_cover, last_modified)
                      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""", books)
    db.executemany("INSERT INTO books_authors_link (book, author) VALUES (?, ?)", links)
    db.executemany("INSERT INTO identifiers (book, type, val) VALUES (?, ?, ?)", idents)
    db.executemany("INSERT INTO books_publishers_link (book, publisher) VALUES (?, ?)", pubs)
    db.executemany("INSERT INTO books_tags_link (book, tag) VALUES (?, ?)", tags)
    db.executemany("INSERT INTO books_languages_link (book, lang_code, item_order) VALUES (?, ?, ?)", langs)
    db.executemany("INSERT INTO data (book, format, uncompressed_size, name) VALUES (?, ?, ?, ?)", data)
    db.executemany("INSERT INTO comments (book, text) VALUES (?, ?)", comments)
    db.executemany("INSERT INTO books_series_link (book, series) VALUES (?, ?)", serieslinks)
    db.execute("COMMIT")
    db.close()
    jpeg = bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]) + bytes(64) + bytes([0xFF, 0xD9])
    for folder in covers:
        os.makedirs(os.path.join(args.directory, folder), exist_ok=True)
        with open(os.path.join(args.directory, folder, "cover.jpg"), "wb") as f:
            f.write(jpeg)
    print(f"{path}: {args.books} books, {len(authors)} authors, {len(idents)} identifiers, "
          f"{os.path.getsize(path) / 1e6:.1f} MB in {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
