#include "gui/cli/cli_util.h"

#include "engine/config/setting_text.h"
#include "engine/scenario/load.h"

#include <cstdlib>
#include <ostream>

namespace gui::cli {

bool parseSetting(const std::string& text, std::vector<std::pair<std::string, engine::PyValue>>& into,
    std::ostream& err, const char* command)
{
    auto setting = engine::config::parseSetting(text);
    if (!setting) {
        err << command << ": --set " << setting.error().toString() << "\n";
        return false;
    }
    into.push_back(std::move(setting.value()));
    return true;
}

bool parseSymbols(const std::string& text, engine::SymbolValues& into, std::ostream& err, const char* command)
{
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto eq = item.find('=');
        char* end = nullptr;
        const long long v = eq == std::string::npos ? 0 : std::strtoll(item.c_str() + eq + 1, &end, 10);
        if (eq == std::string::npos || eq == 0 || !end || *end || end == item.c_str() + eq + 1 || v < 0) {
            err << command << ": --symbols expects NAME=N[,NAME=N...] with N >= 0, got '" << text << "'\n";
            return false;
        }
        into[item.substr(0, eq)] = v;
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return true;
}

bool checkInputKind(const std::string& text, std::ostream& err, const char* command)
{
    if (auto ok = engine::scenario::checkInputKindSpec(text); !ok) {
        err << command << ": " << ok.error().toString() << "\n";
        return false;
    }
    return true;
}

std::string pad(std::string text, size_t width, bool right)
{
    if (text.size() >= width)
        return text;
    const std::string fill(width - text.size(), ' ');
    return right ? fill + text : text + fill;
}

} // namespace gui::cli
