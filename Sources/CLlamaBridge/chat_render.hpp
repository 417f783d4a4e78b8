// The rendered chat prompt, shared by the chat and sampler halves of the bridge.
#pragma once

#include "chat.h"
#include "common.h"

struct llmkit_chat_render {
    common_chat_params        params;
    common_chat_parser_params parser;
};
