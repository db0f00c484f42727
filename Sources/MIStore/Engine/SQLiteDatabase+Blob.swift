import Foundation
import GRDB
import GRDBSQLite

extension SQLiteDatabase {
    /// SQLite's incremental blob I/O: reads only the piece asked for. `substr()` on a blob
    /// column loads the whole value first, so sending a 40 MiB file in 256 KiB pieces read
    /// 6.5 GB and held 40 MiB at each step.
    func blobPiece(table: String, column: String, id: Int64, offset: Int, count: Int) throws -> [UInt8] {
        var blob: OpaquePointer?
        let opened = sqlite3_blob_open(db.sqliteConnection, "main", table, column, id, 0, &blob)
        defer { sqlite3_blob_close(blob) }
        guard opened == SQLITE_OK, let blob else {
            throw StoreError(.database, "cannot read \(table).\(column) of row \(id): "
                             + String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        let size = Int(sqlite3_blob_bytes(blob))
        let length = max(0, min(count, size - offset))
        guard length > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: length)
        let read = bytes.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, Int32(length), Int32(offset)) }
        guard read == SQLITE_OK else {
            throw StoreError(.database, "cannot read \(table).\(column) of row \(id): "
                             + String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
        return bytes
    }
}
