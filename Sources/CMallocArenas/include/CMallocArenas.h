#ifndef SEEK_C_MALLOC_ARENAS_H
#define SEEK_C_MALLOC_ARENAS_H

/// Caps how many malloc arenas glibc makes in this process (mallopt's M_ARENA_MAX), which Swift's
/// Glibc module does not declare. Returns 1 when the limit was set, 0 when it was refused or the C
/// library has no such setting (musl, Darwin).
int seek_set_malloc_arena_max(int count);

#endif
