// TestParallelism has no API: its one function is a constructor of the test binary
// (TestParallelism.c). SwiftPM wants a header for a C target.
