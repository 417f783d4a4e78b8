// The rendered chat prompt: its parameters and its output parser.
#pragma once

#include "chat.h"
#include "common.h"

struct llmkit_chat_render {
    common_chat_params        params;
    common_chat_parser_params parser;
};
