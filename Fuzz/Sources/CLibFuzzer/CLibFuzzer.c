// Only a header: LLVMFuzzerRunDriver comes from libclang_rt.fuzzer, linked by -sanitize=fuzzer.
#include "CLibFuzzer.h"
