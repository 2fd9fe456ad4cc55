//! The NTSTATUS values an SMB2 response or an SMB Direct negotiate response carries
//! (MS-ERREF 2.3), by the names Windows gives them.

pub const STATUS_SUCCESS: u32 = 0x0000_0000;
/// An interim response: the final one, with the same message ID, comes later.
pub const STATUS_PENDING: u32 = 0x0000_0103;
/// SESSION_SETUP's "go on": an error code by its severity, part of a normal login.
pub const STATUS_MORE_PROCESSING_REQUIRED: u32 = 0xC000_0016;

/// The NTSTATUS's name, or `STATUS_UNKNOWN` for one not listed.
pub fn name(status: u32) -> &'static str {
    match status {
        STATUS_SUCCESS => "STATUS_SUCCESS",
        STATUS_PENDING => "STATUS_PENDING",
        0x8000_0005 => "STATUS_BUFFER_OVERFLOW",
        0x8000_0006 => "STATUS_NO_MORE_FILES",
        0xC000_000D => "STATUS_INVALID_PARAMETER",
        0xC000_000F => "STATUS_NO_SUCH_FILE",
        0xC000_0010 => "STATUS_INVALID_DEVICE_REQUEST",
        0xC000_0011 => "STATUS_END_OF_FILE",
        STATUS_MORE_PROCESSING_REQUIRED => "STATUS_MORE_PROCESSING_REQUIRED",
        0xC000_0022 => "STATUS_ACCESS_DENIED",
        0xC000_0033 => "STATUS_OBJECT_NAME_INVALID",
        0xC000_0034 => "STATUS_OBJECT_NAME_NOT_FOUND",
        0xC000_0035 => "STATUS_OBJECT_NAME_COLLISION",
        0xC000_003A => "STATUS_OBJECT_PATH_NOT_FOUND",
        0xC000_0043 => "STATUS_SHARING_VIOLATION",
        0xC000_006D => "STATUS_LOGON_FAILURE",
        0xC000_009A => "STATUS_INSUFFICIENT_RESOURCES",
        0xC000_00BA => "STATUS_FILE_IS_A_DIRECTORY",
        0xC000_00BB => "STATUS_NOT_SUPPORTED",
        0xC000_00CC => "STATUS_BAD_NETWORK_NAME",
        0xC000_0120 => "STATUS_CANCELLED",
        0xC000_0128 => "STATUS_FILE_CLOSED",
        0xC000_0203 => "STATUS_USER_SESSION_DELETED",
        _ => "STATUS_UNKNOWN",
    }
}

/// Whether the status is an error (severity 3), but for the one a login goes on with.
pub fn is_error(status: u32) -> bool {
    status >> 30 == 3 && status != STATUS_MORE_PROCESSING_REQUIRED
}
