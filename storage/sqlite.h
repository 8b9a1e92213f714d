#pragma once
/// Small RAII types over the SQLite C API (house style: sqlitebrowser's DBBrowserDB, without Qt).
/// Every call returns engine::Result with SQLite's message and the database file as context.
/// Thread contract: a Database and its Statements belong to one thread at a time; open a second
/// Database on the same file for another thread (WAL lets readers run beside one writer).
#include "engine/core/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace storage {

using engine::Error;
using engine::ErrorCode;
using engine::Result;

class Statement;

class Database {
public:
    struct OpenOptions {
        bool create = true; ///< create the file when it does not exist
        bool readOnly = false;
        int busyTimeoutMs = 5000;
        /// One connection used by several threads at once (the window's project session: every view
        /// loads through it): SQLite's serialized mode (SQLITE_OPEN_FULLMUTEX) makes each call wait
        /// for the others. Off: multi-thread mode, one thread at a time (the importers, the CLI).
        bool sharedAcrossThreads = false;
        /// openProject runs PRAGMA quick_check on files up to this size (0: never); a damaged
        /// project is refused for writing and opened read-only with damage() set (docs/limits.md).
        uint64_t quickCheckMaxBytes = uint64_t(256) << 20;
    };

    /// Opens `path` (":memory:" for a private in-memory database) with foreign_keys=ON and, for a
    /// file, journal_mode=WAL. A file that is not SQLite ("file is not a database") is an error
    /// naming it; nothing is written to it.
    static Result<Database> open(const std::string& path, const OpenOptions& options);
    static Result<Database> open(const std::string& path) { return open(path, OpenOptions {}); }

    Database(Database&&) noexcept = default;
    Database& operator=(Database&&) noexcept = default;
    ~Database();

    const std::string& path() const { return m_path; }
    sqlite3* handle() const { return m_db.get(); }

    /// Runs one or more statements without results.
    Result<void> exec(const std::string& sql);
    Result<Statement> prepare(const std::string& sql);
    /// PRAGMA user_version.
    Result<int> userVersion();
    /// An integer pragma's value (`application_id`, `schema_version`, ...).
    Result<int> pragmaInt(const std::string& name);
    Result<void> setUserVersion(int version);
    /// PRAGMA quick_check: empty when the database is sound, else SQLite's report.
    Result<std::string> quickCheck();
    /// SQLite's quick_check report when openProject found the file damaged (read-only opens only).
    const std::string& damage() const { return m_damage; }
    void setDamage(std::string report) { m_damage = std::move(report); }
    /// Whether openProject ran quick_check (false past quickCheckMaxBytes, and for ":memory:").
    bool quickChecked() const { return m_quickChecked; }
    void setQuickChecked(bool on) { m_quickChecked = on; }
    int64_t lastInsertRowId() const;
    int changes() const;

    /// An Error with SQLite's current message for this database.
    Error error(const std::string& what) const;

private:
    struct Closer {
        void operator()(sqlite3* db) const;
    };
    Database(sqlite3* db, std::string path);
    std::unique_ptr<sqlite3, Closer> m_db;
    std::string m_path;
    std::string m_damage;
    bool m_quickChecked = false;
};

/// A prepared statement. bind() takes 1-based indices as SQLite does; step() returns true while
/// there is a row.
class Statement {
public:
    Statement(Statement&&) noexcept = default;
    Statement& operator=(Statement&&) noexcept = default;

    Statement& bind(int index, int64_t value);
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    Statement& bindBlob(int index, std::string_view bytes);
    Statement& bindNull(int index);

    Result<bool> step();
    /// step() until done, for statements without results.
    Result<void> run();
    void reset(); ///< ready to run again, bindings cleared

    int64_t columnInt(int index) const;
    double columnDouble(int index) const;
    std::string columnText(int index) const;
    std::string columnBlob(int index) const; ///< the bytes of a BLOB (or TEXT) column
    bool columnIsNull(int index) const;
    int columnCount() const; ///< columns of the result

private:
    friend class Database;
    struct Finalizer {
        void operator()(sqlite3_stmt* s) const;
    };
    Statement(sqlite3_stmt* s, std::string path)
        : m_stmt(s)
        , m_path(std::move(path))
    {
    }
    Error error(const std::string& what) const;
    std::unique_ptr<sqlite3_stmt, Finalizer> m_stmt;
    std::string m_path; ///< the database file, for errors
    Error m_bindError; ///< the first failed bind, reported by step()
    bool m_bindFailed = false;
};

/// BEGIN IMMEDIATE on construction; ROLLBACK in the destructor unless commit() succeeded. A failed
/// or cancelled import therefore leaves the database exactly as it was.
class Transaction {
public:
    static Result<Transaction> begin(Database& db);
    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    ~Transaction();
    Result<void> commit();

private:
    Transaction(sqlite3* db, std::string path)
        : m_db(db)
        , m_path(std::move(path))
    {
    }
    sqlite3* m_db; ///< null once committed or moved from
    std::string m_path;
};

} // namespace storage
