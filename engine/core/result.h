#pragma once
/// Result<T>: a value or an Error. The engine and storage layers return these instead of throwing,
/// so that every failure carries a message a user can act on and the place (file, JSON path, line)
/// it came from.
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace engine {

enum class ErrorCode {
    InvalidArgument, ///< a value of the wrong type or out of range (TorchAir's ValueError/TypeError)
    ParseError, ///< malformed input text (JSON, FX code, ...)
    NotFound, ///< a file, graph, node or storage that is referenced but absent
    OutOfMemory, ///< the simulated device cannot hold a new segment
    Internal, ///< a broken invariant of the simulator itself
    Io, ///< the file system said no
    Cancelled, ///< the user (a progress callback) stopped it
};

/// What went wrong (`message`, TorchAir's own text where TorchAir has one) and where
/// (`context`: "file.json: $.graphs[0].nodes[3]" or "file.py:12:5").
struct Error {
    ErrorCode code = ErrorCode::Internal;
    std::string message;
    std::string context;

    /// "context: message", or just the message when there is no context.
    std::string toString() const { return context.empty() ? message : context + ": " + message; }
};

template <typename T> class [[nodiscard]] Result {
public:
    Result(T value)
        : m_v(std::move(value))
    {
    }
    Result(Error error)
        : m_v(std::move(error))
    {
    }
    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    const T& value() const& { return std::get<0>(m_v); }
    T&& value() && { return std::get<0>(std::move(m_v)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    const Error& error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

/// Result of an operation that has no value.
template <> class [[nodiscard]] Result<void> {
public:
    Result() = default;
    Result(Error error)
        : m_error(std::move(error))
    {
    }
    bool ok() const { return !m_error.has_value(); }
    explicit operator bool() const { return ok(); }
    const Error& error() const { return *m_error; }

private:
    std::optional<Error> m_error;
};

inline Error makeError(ErrorCode code, std::string message, std::string context = {})
{
    return Error { code, std::move(message), std::move(context) };
}

} // namespace engine
