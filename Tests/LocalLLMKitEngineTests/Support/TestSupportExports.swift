// The shared test support (Tests/LocalLLMKitTestSupport), visible in every file of this target.
@_exported import LocalLLMKitTestSupport
