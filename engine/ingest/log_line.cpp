// One physical log line split into its prefix and message (run_log.h, parseLogLine), and whether a
// file's head is a run log. Hand-written scanning, no regular expressions: a 1 GiB log is read at a
// rate comparable to grep's (bench/run_log_bench.cpp).
#include "engine/ingest/run_log.h"

#include <cctype>
#include <ctime>

namespace engine::ingest {

using runtime::LogLevel;

const char* logFormatName(LogFormat f)
{
    switch (f) {
    case LogFormat::Torchair:
        return "torchair";
    case LogFormat::TorchairShort:
        return "torchair_short";
    case LogFormat::Simulator:
        return "simulator";
    case LogFormat::PythonWarning:
        return "python_warning";
    case LogFormat::PyTorch:
        return "pytorch";
    case LogFormat::Foreign:
        break;
    }
    return "foreign";
}

namespace {

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// A run of digits at `s[i]` as a number; false when there is none (or it overflows 18 digits).
bool number(std::string_view s, size_t& i, int64_t& out)
{
    const size_t start = i;
    int64_t v = 0;
    while (i < s.size() && isDigit(s[i]) && i - start < 18)
        v = v * 10 + (s[i++] - '0');
    out = v;
    return i > start && (i >= s.size() || !isDigit(s[i]));
}

bool eat(std::string_view s, size_t& i, std::string_view what)
{
    if (s.substr(i, what.size()) != what)
        return false;
    i += what.size();
    return true;
}

/// Exactly `n` digits at `s[i]`.
bool digits(std::string_view s, size_t& i, int n, int64_t& out)
{
    out = 0;
    for (int k = 0; k < n; ++k, ++i) {
        if (i >= s.size() || !isDigit(s[i]))
            return false;
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

int64_t utcMicros(int64_t year, int64_t month, int64_t day, int64_t h, int64_t m, int64_t sec, int64_t us)
{
    std::tm tm {};
    tm.tm_year = int(year) - 1900;
    tm.tm_mon = int(month) - 1;
    tm.tm_mday = int(day);
    tm.tm_hour = int(h);
    tm.tm_min = int(m);
    tm.tm_sec = int(sec);
    return int64_t(timegm(&tm)) * 1000000 + us;
}

/// "HH:MM:SS" then, when `fraction`, its fractional part in one of the forms the writers use:
/// ".123456" (glog), ".123.456" (TorchAir: milliseconds and microseconds), ".123" or none.
bool clock(std::string_view s, size_t& i, int64_t& h, int64_t& m, int64_t& sec, int64_t& us)
{
    if (!digits(s, i, 2, h) || !eat(s, i, ":") || !digits(s, i, 2, m) || !eat(s, i, ":") || !digits(s, i, 2, sec))
        return false;
    us = 0;
    if (i < s.size() && s[i] == '.' && i + 1 < s.size() && isDigit(s[i + 1])) {
        ++i;
        const size_t start = i;
        int64_t v = 0;
        while (i < s.size() && isDigit(s[i]) && i - start < 9)
            v = v * 10 + (s[i++] - '0');
        const size_t n = i - start;
        if (n == 3 && i + 3 < s.size() && s[i] == '.' && isDigit(s[i + 1])) {
            int64_t micro = 0;
            ++i;
            if (!digits(s, i, 3, micro))
                return false;
            us = v * 1000 + micro;
        } else {
            for (size_t k = n; k < 6; ++k)
                v *= 10;
            for (size_t k = 6; k < n; ++k)
                v /= 10;
            us = v;
        }
    }
    return h < 24 && m < 60 && sec < 61;
}

/// "YYYY-mm-dd HH:MM:SS[.frac]".
bool dateTime(std::string_view s, size_t& i, int64_t& timeUs)
{
    int64_t y, mo, d, h, m, sec, us;
    if (!digits(s, i, 4, y) || !eat(s, i, "-") || !digits(s, i, 2, mo) || !eat(s, i, "-") || !digits(s, i, 2, d))
        return false;
    if (!eat(s, i, " ") || !clock(s, i, h, m, sec, us) || mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    timeUs = utcMicros(y, mo, d, h, m, sec, us);
    return true;
}

bool levelWord(std::string_view w, LogLevel& level)
{
    if (w == "DEBUG")
        level = LogLevel::Debug;
    else if (w == "INFO")
        level = LogLevel::Info;
    else if (w == "WARNING" || w == "WARN")
        level = LogLevel::Warning;
    else if (w == "ERROR" || w == "CRITICAL" || w == "FATAL")
        level = LogLevel::Error;
    else
        return false;
    return true;
}

/// A launcher's rank prefix at the start: "[rank1]:", "[default1]:" (torchrun), "[1,1]<stderr>:"
/// (Open MPI's --tag-output). Returns the characters it takes (0 when none) and the rank.
size_t rankPrefix(std::string_view s, std::string& rank)
{
    size_t i = 0;
    if (!eat(s, i, "["))
        return 0;
    int64_t n = 0;
    if (eat(s, i, "rank") || eat(s, i, "default")) {
        if (!number(s, i, n) || !eat(s, i, "]:"))
            return 0;
    } else {
        int64_t job = 0;
        if (!number(s, i, job) || !eat(s, i, ",") || !number(s, i, n) || !eat(s, i, "]<std"))
            return 0;
        if (!eat(s, i, "out>:") && !eat(s, i, "err>:"))
            return 0;
    }
    rank = std::to_string(n);
    if (i < s.size() && s[i] == ' ')
        ++i;
    return i;
}

bool isIdentChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

/// "<Category>Warning: " at `s[i]`: the category (a Python identifier ending in "Warning").
bool warningCategory(std::string_view s, size_t& i, std::string& category)
{
    size_t j = i;
    while (j < s.size() && isIdentChar(s[j]))
        ++j;
    const std::string_view word = s.substr(i, j - i);
    if (word.size() < 7 || word.substr(word.size() - 7) != "Warning" || s.substr(j, 2) != ": ")
        return false;
    category = std::string(word);
    i = j + 2;
    return true;
}

/// The TorchAir forms after "[LEVEL] TORCHAIR" (or NPUGRAPH_EX / PYTORCH).
bool torchairRest(std::string_view s, size_t i, LogEntry& e)
{
    if (eat(s, i, "(")) { // (pid,exe):date time [file:line]tid message
        int64_t pid = 0;
        if (!number(s, i, pid) || !eat(s, i, ","))
            return false;
        const size_t close = s.find("):", i);
        if (close == std::string_view::npos)
            return false;
        i = close + 2;
        int64_t t = -1;
        if (!dateTime(s, i, t) || !eat(s, i, " ["))
            return false;
        const size_t end = s.find(']', i);
        if (end == std::string_view::npos)
            return false;
        e.source = std::string(s.substr(i, end - i));
        i = end + 1;
        int64_t tid = 0;
        number(s, i, tid);
        if (i < s.size() && s[i] == ' ')
            ++i;
        e.format = LogFormat::Torchair;
        e.pid = pid;
        e.timeUs = t;
        e.message = std::string(s.substr(i));
        return true;
    }
    if (eat(s, i, " call ")) { // the simulator: call N: message
        int64_t call = 0;
        if (!number(s, i, call) || !eat(s, i, ": "))
            return false;
        e.format = LogFormat::Simulator;
        e.call = int(call);
        e.message = std::string(s.substr(i));
        return true;
    }
    if (eat(s, i, ": ")) { // the simulator, a run-level line
        e.format = LogFormat::Simulator;
        e.message = std::string(s.substr(i));
        return true;
    }
    if (eat(s, i, " ")) { // TorchAir's short form: date time message
        int64_t t = -1;
        if (!dateTime(s, i, t))
            return false;
        if (i < s.size() && s[i] == ' ')
            ++i;
        e.format = LogFormat::TorchairShort;
        e.timeUs = t;
        e.message = std::string(s.substr(i));
        return true;
    }
    return false;
}

/// torch._logging's glog form: "<L><MMDD> <HH:MM:SS.uuuuuu> <pid> <file>:<line>] <message>", the
/// message then optionally "[<compile id>] " and "[__<artifact>] ". The year is not written: times
/// count from January 1st 1970.
bool glogLine(std::string_view s, LogEntry& e)
{
    if (s.size() < 30)
        return false;
    LogLevel level;
    switch (s[0]) {
    case 'V':
    case 'D':
        level = LogLevel::Debug;
        break;
    case 'I':
        level = LogLevel::Info;
        break;
    case 'W':
        level = LogLevel::Warning;
        break;
    case 'E':
    case 'F':
        level = LogLevel::Error;
        break;
    default:
        return false;
    }
    size_t i = 1;
    int64_t mo, d, h, m, sec, us, pid;
    if (!digits(s, i, 2, mo) || !digits(s, i, 2, d) || !eat(s, i, " ") || !clock(s, i, h, m, sec, us))
        return false;
    if (!eat(s, i, " ") || !number(s, i, pid) || !eat(s, i, " "))
        return false;
    const size_t end = s.find("] ", i);
    const size_t space = s.find(' ', i);
    if (end == std::string_view::npos || space < end || s.substr(i, end - i).find(':') == std::string_view::npos)
        return false;
    e.format = LogFormat::PyTorch;
    e.level = level;
    e.pid = pid;
    e.timeUs = utcMicros(1970, mo < 1 || mo > 12 ? 1 : mo, d < 1 || d > 31 ? 1 : d, h, m, sec, us);
    e.source = std::string(s.substr(i, end - i));
    i = end + 2;
    if (s.substr(i, 1) == "[" && i + 1 < s.size() && (isDigit(s[i + 1]) || s[i + 1] == '!')) {
        const size_t close = s.find("] ", i);
        if (close != std::string_view::npos && close - i < 32) {
            e.compileId = std::string(s.substr(i + 1, close - i - 1));
            i = close + 2;
        }
    }
    if (s.substr(i, 3) == "[__") {
        const size_t close = s.find(']', i);
        if (close != std::string_view::npos && close - i < 64) {
            e.artifact = std::string(s.substr(i + 3, close - i - 3));
            i = close + 1;
            if (i < s.size() && s[i] == ' ')
                ++i;
        }
    }
    e.message = std::string(s.substr(i));
    return true;
}

} // namespace

LogEntry parseLogLine(std::string_view line, int lineNo)
{
    LogEntry e;
    e.line = lineNo;
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    const size_t skip = rankPrefix(line, e.rank);
    const std::string_view s = line.substr(skip);
    if (s.size() > 2 && s[0] == '[') {
        const size_t close = s.find("] ");
        LogLevel level;
        if (close != std::string_view::npos && close < 10 && levelWord(s.substr(1, close - 1), level)) {
            size_t i = close + 2;
            for (const char* tag : { "TORCHAIR", "NPUGRAPH_EX", "PYTORCH" }) {
                size_t j = i;
                if (eat(s, j, tag) && torchairRest(s, j, e)) {
                    e.level = level;
                    e.logger = tag;
                    return e;
                }
            }
        }
    }
    if (glogLine(s, e))
        return e;
    size_t i = 0;
    if (warningCategory(s, i, e.category)) { // the simulator's "UserWarning: text"
        e.format = LogFormat::Simulator;
        e.level = LogLevel::Warning;
        e.message = std::string(s.substr(i));
        return e;
    }
    // warnings.showwarning: "<file>:<line>: <Category>: <text>"
    for (size_t colon = s.find(": "); colon != std::string_view::npos && colon < 4096;
         colon = s.find(": ", colon + 1)) {
        size_t d = colon;
        while (d > 0 && isDigit(s[d - 1]))
            --d;
        if (d == colon || d == 0 || s[d - 1] != ':')
            continue;
        size_t j = colon + 2;
        if (warningCategory(s, j, e.category)) {
            e.format = LogFormat::PythonWarning;
            e.level = LogLevel::Warning;
            e.source = std::string(s.substr(0, colon));
            e.message = std::string(s.substr(j));
            return e;
        }
        break;
    }
    e.format = LogFormat::Foreign;
    e.message = std::string(s);
    return e;
}

namespace {

/// The torch._logging artifacts whose lines tell a run (the rest are PyTorch lines we pass over).
bool runArtifact(std::string_view a)
{
    return a == "recompiles" || a == "recompiles_verbose" || a == "cudagraphs" || a == "graph_breaks"
        || a == "perf_hints" || a == "cudagraph_static_inputs";
}

} // namespace

bool looksLikeRunLog(std::string_view head, std::string* evidence)
{
    int lineNo = 0;
    size_t pos = 0;
    while (pos < head.size()) {
        size_t end = head.find('\n', pos);
        const bool last = end == std::string_view::npos;
        if (last)
            end = head.size();
        ++lineNo;
        const LogEntry e = parseLogLine(head.substr(pos, end - pos), lineNo);
        const bool torchair = (e.format == LogFormat::Torchair || e.format == LogFormat::TorchairShort
                                  || e.format == LogFormat::Simulator)
            && (e.logger == "TORCHAIR" || e.logger == "NPUGRAPH_EX");
        if (torchair || (e.format == LogFormat::Simulator && e.logger == "PYTORCH")) {
            if (evidence)
                *evidence = "line " + std::to_string(lineNo) + " is " + e.logger + "'s logger line ("
                    + logFormatName(e.format) + " form)";
            return true;
        }
        if (e.format == LogFormat::PyTorch && runArtifact(e.artifact)) {
            if (evidence)
                *evidence
                    = "line " + std::to_string(lineNo) + " is a PyTorch TORCH_LOGS line of [__" + e.artifact + "]";
            return true;
        }
        if (last)
            break;
        pos = end + 1;
    }
    return false;
}

} // namespace engine::ingest
