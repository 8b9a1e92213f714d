// TEMPORARY until the TORCH_TRACE reader lands (branch trace): the sniffer alone.
#include "engine/readers/torch_trace.h"

namespace engine::readers::trace {

bool looksLikeTorchTrace(const std::string& head)
{
    // glog header: a level letter, MMDD, time, thread, file:line, "] " then a JSON object.
    size_t start = head.find_first_not_of("\r\n");
    if (start == std::string::npos || start + 6 > head.size())
        return false;
    const char level = head[start];
    if (level != 'V' && level != 'I' && level != 'W' && level != 'E')
        return false;
    const size_t eol = head.find('\n', start);
    const std::string line = head.substr(start, eol == std::string::npos ? std::string::npos : eol - start);
    const size_t close = line.find("] {");
    if (close == std::string::npos)
        return false;
    const std::string env = line.substr(close + 2);
    return env.find("\"frame_id\"") != std::string::npos || env.find("\"chromium_event\"") != std::string::npos
        || env.find("\"str\"") != std::string::npos || env.find("\"dynamo_start\"") != std::string::npos;
}

} // namespace engine::readers::trace
