import Synchronization

/// Numbers scratch directories within this process.
let scratchCounter = Atomic<UInt64>(0)
