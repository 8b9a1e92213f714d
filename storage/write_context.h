#pragma once
/// What every writer in storage/ shares while it fills the project database: the connection, a
/// count of the rows written, and the importer's progress/cancel callback, asked every
/// kRowsPerTick rows. A writer calls row() after each row it inserts and returns the error it gets
/// (ErrorCode::Cancelled) at once; the caller's Transaction then rolls everything back.
#include "storage/sqlite.h"

#include <cstdint>
#include <functional>

namespace storage {

class WriteContext {
public:
    static constexpr int64_t kRowsPerTick = 4096;
    /// `onRows(rowsSoFar)` returns false to cancel; may be empty.
    explicit WriteContext(Database& db, std::function<bool(int64_t rows)> onRows = {})
        : m_db(db)
        , m_onRows(std::move(onRows))
    {
    }
    Database& db() { return m_db; }
    int64_t rows() const { return m_rows; }
    /// Counts one row; every kRowsPerTick rows asks onRows. Error "cancelled" when it says stop.
    Result<void> row()
    {
        ++m_rows;
        if (m_onRows && m_rows % kRowsPerTick == 0 && !m_onRows(m_rows))
            return Error { ErrorCode::Cancelled, "cancelled", m_db.path() };
        return {};
    }
    /// Asks onRows now (between sections of a source).
    Result<void> checkpoint()
    {
        if (m_onRows && !m_onRows(m_rows))
            return Error { ErrorCode::Cancelled, "cancelled", m_db.path() };
        return {};
    }

private:
    Database& m_db;
    std::function<bool(int64_t)> m_onRows;
    int64_t m_rows = 0;
};

} // namespace storage
