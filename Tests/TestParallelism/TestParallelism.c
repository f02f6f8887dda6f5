#include <stdlib.h>

/// Bounds the tests Swift Testing runs at once, for plain `swift test` as for CI.
///
/// Swift Testing starts every test at once on a cooperative pool as wide as the machine's cores.
/// On two cores, several hundred tests interleaving made each await of a test wait behind all
/// the others: tests that step a clock or follow another process many times ran past their time
/// limits although none was stuck (decision 0022). The runner reads its width from this
/// variable (an option of Swift Testing 6.3, ignored where unknown) when `main` starts; a
/// constructor of the test binary runs before `main`, so the bound lives in the package, not in
/// a script. A width set in the environment wins.
__attribute__((constructor)) static void syncjournal_bound_test_parallelism(void) {
    setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", "6", 0);
}
