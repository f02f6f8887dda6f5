import Synchronization

/// Numbers scratch directories within this process.
let scratchCounter = Atomic<UInt64>(0)

/// Numbers checkpoints being written within this process, so two writers never share a
/// temporary folder.
let checkpointCounter = Atomic<UInt64>(0)
