// LocalLLMKit is the engine plus chat, structured output, tools and the model library:
// importing it imports the engine's public API (LocalModel, CompletionOptions, GGUFFile…) too.
@_exported import LocalLLMKitEngine
