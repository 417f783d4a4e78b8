// llama.cpp's multimodal library (mtmd: image and audio encoders and projectors), found
// through pkg-config (llama-mtmd.pc, which scripts/bootstrap installs). Only the vision
// bridge uses it; Swift code goes through the bridge, whose calls catch C++ exceptions.
#include <mtmd.h>
#include <mtmd-helper.h>
