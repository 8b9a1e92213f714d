#include "engine/config/setting_text.h"

#include "engine/config/options.h"

#include <algorithm>

namespace engine::config {

Result<Setting> parseSetting(const std::string& text)
{
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        return makeError(ErrorCode::InvalidArgument, "expects NAME=VALUE, got '" + text + "'");
    auto value = parsePyLiteral(text.substr(eq + 1));
    if (!value)
        return makeError(value.error().code, value.error().toString(), text);
    return Setting { text.substr(0, eq), std::move(value.value()) };
}

std::string settingText(const Setting& setting)
{
    return setting.first + "=" + setting.second.repr();
}

int optionIndex(const std::string& name)
{
    const auto& table = optionTable();
    for (size_t i = 0; i < table.size(); ++i)
        if (!name.empty() && (table[i].torchairName == name || table[i].npugraphExName == name))
            return int(i);
    return -1;
}

std::vector<Setting> mergeSettings(const std::vector<Setting>& earlier, const std::vector<Setting>& later)
{
    std::vector<Setting> out;
    auto add = [&out](const Setting& s) {
        const int index = optionIndex(s.first);
        out.erase(
            std::remove_if(out.begin(), out.end(),
                [&](const Setting& o) { return index >= 0 ? optionIndex(o.first) == index : o.first == s.first; }),
            out.end());
        out.push_back(s);
    };
    for (const Setting& s : earlier)
        add(s);
    for (const Setting& s : later)
        add(s);
    return out;
}

bool sameSettings(const std::vector<Setting>& a, const std::vector<Setting>& b)
{
    auto texts = [](const std::vector<Setting>& settings) {
        std::vector<std::string> out;
        for (const Setting& s : settings)
            out.push_back(settingText(s));
        std::sort(out.begin(), out.end());
        return out;
    };
    return texts(a) == texts(b);
}

} // namespace engine::config
