#ifndef SEEK_FUZZ_CLIBFUZZER_H
#define SEEK_FUZZ_CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp, in libclang_rt.fuzzer since LLVM 12): parses the
/// libFuzzer flags in argv and fuzzes `callback`. Called from each target's entry point, because SwiftPM
/// links executables with `main` defined as `<Target>_main`, which keeps libFuzzer's own `main` out.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
