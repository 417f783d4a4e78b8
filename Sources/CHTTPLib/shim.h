// cpp-httplib (llama-server's HTTP library, from llama.cpp's tree) is C++ only; Swift never
// imports it. This module exists so that SwiftPM finds its header and static library through
// pkg-config (llmkit-httplib.pc, installed by scripts/bootstrap) for CHTTPServerBridge.
