// libFuzzer's driver, linked in by `-sanitize=fuzzer` (compiler-rt's libclang_rt.fuzzer).
// Declared here so the fuzz executable can keep its own `main` (a corpus replayer when built
// without the fuzzer) and hand over to libFuzzer when built with it. Only called from code
// compiled with -DFUZZING, so a normal build never needs the symbol.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
