//! The protobuf wire format: a message is a sequence of (field number, wire type, value) records.

use super::ProtobufError;

/// One record's value as the wire carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireValue<'a> {
    /// Wire type 0: an integer or a boolean.
    Varint(u64),
    /// Wire type 1: a double.
    Fixed64(u64),
    /// Wire type 2: text, bytes, a message, or packed scalars.
    Bytes(&'a [u8]),
    /// Wire type 5: a float.
    Fixed32(u32),
}

/// Reads the records of one message in order.
#[derive(Debug, Clone)]
pub struct Records<'a> {
    bytes: &'a [u8],
}

impl<'a> Records<'a> {
    /// The records of a message's bytes.
    pub fn new(bytes: &'a [u8]) -> Self {
        Records { bytes }
    }

    fn take(&mut self, count: usize) -> Result<&'a [u8], ProtobufError> {
        if count > self.bytes.len() {
            return Err(ProtobufError::Truncated);
        }
        let (taken, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        Ok(taken)
    }

    /// Reads a base-128 varint.
    pub fn varint(&mut self) -> Result<u64, ProtobufError> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.take(1)?.first().ok_or(ProtobufError::Truncated)?;
            if shift == 63 && byte > 1 {
                return Err(ProtobufError::BadVarint);
            }
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ProtobufError::BadVarint)
    }

    /// Whether every record has been read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<(u32, WireValue<'a>), ProtobufError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.bytes.is_empty() {
            return None;
        }
        let record = (|| {
            let key = self.varint()?;
            let number = u32::try_from(key >> 3).map_err(|_| ProtobufError::BadVarint)?;
            let value = match key & 7 {
                0 => WireValue::Varint(self.varint()?),
                1 => {
                    let bytes: [u8; 8] = self
                        .take(8)?
                        .try_into()
                        .map_err(|_| ProtobufError::Truncated)?;
                    WireValue::Fixed64(u64::from_le_bytes(bytes))
                }
                2 => {
                    let length =
                        usize::try_from(self.varint()?).map_err(|_| ProtobufError::Truncated)?;
                    WireValue::Bytes(self.take(length)?)
                }
                5 => {
                    let bytes: [u8; 4] = self
                        .take(4)?
                        .try_into()
                        .map_err(|_| ProtobufError::Truncated)?;
                    WireValue::Fixed32(u32::from_le_bytes(bytes))
                }
                other => {
                    return Err(ProtobufError::BadWireType {
                        number,
                        wire_type: other as u8,
                    });
                }
            };
            Ok((number, value))
        })();
        if record.is_err() {
            self.bytes = &[];
        }
        Some(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_of_every_wire_type_are_read_in_order() {
        // field 1 varint 300, field 2 bytes "hi", field 3 fixed32 1, field 4 fixed64 2
        let bytes = [
            0x08, 0xac, 0x02, 0x12, 0x02, b'h', b'i', 0x1d, 1, 0, 0, 0, 0x21, 2, 0, 0, 0, 0, 0, 0,
            0,
        ];
        let records: Vec<_> = Records::new(&bytes)
            .collect::<Result<_, _>>()
            .expect("reads");
        assert_eq!(
            records,
            [
                (1, WireValue::Varint(300)),
                (2, WireValue::Bytes(b"hi")),
                (3, WireValue::Fixed32(1)),
                (4, WireValue::Fixed64(2)),
            ]
        );
    }

    #[test]
    fn a_record_running_past_the_end_is_truncated() {
        let mut records = Records::new(&[0x12, 0x05, b'a']);
        assert_eq!(records.next(), Some(Err(ProtobufError::Truncated)));
        assert_eq!(records.next(), None);
        let mut groups = Records::new(&[0x0b]);
        assert!(matches!(
            groups.next(),
            Some(Err(ProtobufError::BadWireType {
                number: 1,
                wire_type: 3
            }))
        ));
    }
}
