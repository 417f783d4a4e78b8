// llama.cpp's `common` library is C++ only; Swift never imports it directly.
// This module exists so that SwiftPM finds its headers and library through
// pkg-config (llama-common.pc) for the C++ bridge (CLlamaEngineBridge, CLlamaChatBridge).
