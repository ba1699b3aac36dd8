//! Bytes of workgroup (shared) memory a SPIR-V module declares under given specialization constants: the sum of
//! its `Workgroup` variables, array lengths evaluated from the spec constants (`OpSpecConstantOp` included).
//! Kernels are checked against it where [`super::DeviceCaps::limits_lowered`]: a device's own limit is the
//! validation layer's to check, a lowered one only this can.

use crate::shaders::Spec;
use std::collections::HashMap;

/// SPIR-V opcodes and enumerants read here.
mod op {
    pub const COMPOSITE_EXTRACT: u32 = 81;
    pub const TYPE_BOOL: u32 = 20;
    pub const TYPE_INT: u32 = 21;
    pub const TYPE_FLOAT: u32 = 22;
    pub const TYPE_VECTOR: u32 = 23;
    pub const TYPE_MATRIX: u32 = 24;
    pub const TYPE_ARRAY: u32 = 28;
    pub const TYPE_STRUCT: u32 = 30;
    pub const TYPE_POINTER: u32 = 32;
    pub const CONSTANT_TRUE: u32 = 41;
    pub const CONSTANT_FALSE: u32 = 42;
    pub const CONSTANT: u32 = 43;
    pub const CONSTANT_COMPOSITE: u32 = 44;
    pub const SPEC_CONSTANT_TRUE: u32 = 48;
    pub const SPEC_CONSTANT_FALSE: u32 = 49;
    pub const SPEC_CONSTANT: u32 = 50;
    pub const SPEC_CONSTANT_COMPOSITE: u32 = 51;
    pub const SPEC_CONSTANT_OP: u32 = 52;
    pub const VARIABLE: u32 = 59;
    pub const DECORATE: u32 = 71;
    pub const DECORATION_SPEC_ID: u32 = 1;
    pub const STORAGE_WORKGROUP: u32 = 4;
}

/// A constant's value: a scalar (booleans 0/1, 64-bit integers whole) or a composite of constant ids.
#[derive(Clone)]
enum Value {
    Scalar(u64),
    Composite(Vec<u32>),
}

/// Bytes of `Workgroup` storage `words` (a whole module) declares with `spec`'s constants set. Each variable is
/// aligned to its largest scalar; booleans count 4 bytes.
pub(crate) fn workgroup_bytes(words: &[u32], spec: &Spec) -> Result<u64, String> {
    if words.len() < 5 {
        return Err("not a SPIR-V module".into());
    }
    let set: HashMap<u32, u32> = spec.entries().iter().map(|&(id, v)| (id.id(), v)).collect();
    let mut spec_ids = HashMap::new();
    let mut types: HashMap<u32, (u32, Vec<u32>)> = HashMap::new();
    let mut values: HashMap<u32, Value> = HashMap::new();
    let mut variables = Vec::new();
    let mut rest = &words[5..];
    while let Some(&first) = rest.first() {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        if count == 0 || count > rest.len() {
            return Err("truncated instruction".into());
        }
        let a = &rest[1..count];
        rest = &rest[count..];
        let arg = |i: usize| a.get(i).copied().unwrap_or(0);
        match opcode {
            op::DECORATE if arg(1) == op::DECORATION_SPEC_ID => {
                spec_ids.insert(arg(0), arg(2));
            }
            op::TYPE_BOOL
            | op::TYPE_INT
            | op::TYPE_FLOAT
            | op::TYPE_VECTOR
            | op::TYPE_MATRIX
            | op::TYPE_ARRAY
            | op::TYPE_STRUCT
            | op::TYPE_POINTER => {
                types.insert(arg(0), (opcode, a[1..].to_vec()));
            }
            op::CONSTANT_TRUE | op::CONSTANT_FALSE => {
                values.insert(arg(1), Value::Scalar((opcode == op::CONSTANT_TRUE) as u64));
            }
            op::SPEC_CONSTANT_TRUE | op::SPEC_CONSTANT_FALSE => {
                let default = (opcode == op::SPEC_CONSTANT_TRUE) as u64;
                let v = spec_ids
                    .get(&arg(1))
                    .and_then(|sid| set.get(sid))
                    .map_or(default, |&v| (v != 0) as u64);
                values.insert(arg(1), Value::Scalar(v));
            }
            op::CONSTANT | op::SPEC_CONSTANT => {
                let default = arg(2) as u64 | (arg(3) as u64) << 32;
                let v = match spec_ids.get(&arg(1)).and_then(|sid| set.get(sid)) {
                    Some(&v) if opcode == op::SPEC_CONSTANT => v as u64,
                    _ if a.len() > 3 => default,
                    _ => arg(2) as u64,
                };
                values.insert(arg(1), Value::Scalar(v));
            }
            op::CONSTANT_COMPOSITE | op::SPEC_CONSTANT_COMPOSITE => {
                values.insert(arg(1), Value::Composite(a[2..].to_vec()));
            }
            // One that fails (a default divides by zero, an opcode not evaluated here) stays unknown: an
            // error only where an array's length needs it.
            op::SPEC_CONSTANT_OP => {
                if let Ok(v) = spec_op(&values, arg(2), &a[3..]) {
                    values.insert(arg(1), v);
                }
            }
            op::VARIABLE if arg(2) == op::STORAGE_WORKGROUP => variables.push(arg(0)),
            _ => {}
        }
    }
    let m = Types {
        types: &types,
        values: &values,
    };
    let mut total = 0u64;
    for ptr in variables {
        let pointee = match types.get(&ptr) {
            Some((op::TYPE_POINTER, a)) if a.len() == 2 => a[1],
            _ => return Err(format!("workgroup variable type %{ptr} is no pointer")),
        };
        let (size, align) = m.layout(pointee)?;
        total = total.next_multiple_of(align) + size;
    }
    Ok(total)
}

/// The scalar of `id`, a constant evaluated so far.
fn scalar(values: &HashMap<u32, Value>, id: u32) -> Result<u64, String> {
    match values.get(&id) {
        Some(Value::Scalar(v)) => Ok(*v),
        _ => Err(format!("%{id} is no scalar constant")),
    }
}

/// Evaluates an `OpSpecConstantOp` of `opcode` on `operands` (32-bit integer and boolean arithmetic).
fn spec_op(values: &HashMap<u32, Value>, opcode: u32, operands: &[u32]) -> Result<Value, String> {
    let v = |i: usize| scalar(values, operands.get(i).copied().unwrap_or(0));
    let (a, b) = (|| v(0), || v(1));
    let b32 = |x: bool| Value::Scalar(x as u64);
    let s = |x: u64| x as u32 as i32;
    let div = |x: u64, y: u64| {
        if y == 0 {
            Err("division by zero".to_string())
        } else {
            Ok((x, y))
        }
    };
    Ok(Value::Scalar(match opcode {
        op::COMPOSITE_EXTRACT => {
            let mut id = operands.first().copied().unwrap_or(0);
            for &index in &operands[1..] {
                match values.get(&id) {
                    Some(Value::Composite(parts)) => {
                        id = *parts
                            .get(index as usize)
                            .ok_or("composite index out of range")?
                    }
                    _ => return Err(format!("%{id} is no composite constant")),
                }
            }
            return values
                .get(&id)
                .cloned()
                .ok_or_else(|| format!("%{id} is no constant"));
        }
        113 | 114 => a()?,                           // UConvert, SConvert
        126 => s(a()?).wrapping_neg() as u32 as u64, // SNegate
        128 => (a()? as u32).wrapping_add(b()? as u32) as u64,
        130 => (a()? as u32).wrapping_sub(b()? as u32) as u64,
        132 => (a()? as u32).wrapping_mul(b()? as u32) as u64,
        134 => div(a()?, b()?).map(|(x, y)| (x as u32 / y as u32) as u64)?,
        135 => div(a()?, b()?).map(|(x, y)| s(x).wrapping_div(s(y)) as u32 as u64)?,
        137 => div(a()?, b()?).map(|(x, y)| (x as u32 % y as u32) as u64)?,
        138 | 139 => div(a()?, b()?).map(|(x, y)| s(x).wrapping_rem(s(y)) as u32 as u64)?,
        194 => ((a()? as u32).checked_shr(b()? as u32).unwrap_or(0)) as u64,
        195 => (s(a()?).checked_shr(b()? as u32).unwrap_or(0)) as u32 as u64,
        196 => ((a()? as u32).checked_shl(b()? as u32).unwrap_or(0)) as u64,
        197 => a()? | b()?,
        198 => a()? ^ b()?,
        199 => a()? & b()?,
        200 => !(a()? as u32) as u64,
        164 | 170 => return Ok(b32(a()? == b()?)),
        165 | 171 => return Ok(b32(a()? != b()?)),
        166 => return Ok(b32(a()? != 0 || b()? != 0)),
        167 => return Ok(b32(a()? != 0 && b()? != 0)),
        168 => return Ok(b32(a()? == 0)),
        169 => {
            if a()? != 0 {
                v(1)?
            } else {
                v(2)?
            }
        }
        172 => return Ok(b32(a()? as u32 > b()? as u32)),
        173 => return Ok(b32(s(a()?) > s(b()?))),
        174 => return Ok(b32(a()? as u32 >= b()? as u32)),
        175 => return Ok(b32(s(a()?) >= s(b()?))),
        176 => return Ok(b32((a()? as u32) < b()? as u32)),
        177 => return Ok(b32(s(a()?) < s(b()?))),
        178 => return Ok(b32(a()? as u32 <= b()? as u32)),
        179 => return Ok(b32(s(a()?) <= s(b()?))),
        o => {
            return Err(format!(
                "OpSpecConstantOp of opcode {o} is not evaluated here"
            ))
        }
    }))
}

/// The module's types and constants.
struct Types<'a> {
    types: &'a HashMap<u32, (u32, Vec<u32>)>,
    values: &'a HashMap<u32, Value>,
}

impl Types<'_> {
    /// `(bytes, alignment)` of type `ty` laid out naturally.
    fn layout(&self, ty: u32) -> Result<(u64, u64), String> {
        let (opcode, a) = self
            .types
            .get(&ty)
            .ok_or_else(|| format!("type %{ty} not understood"))?;
        let arg = |i: usize| a.get(i).copied().unwrap_or(0);
        match *opcode {
            op::TYPE_BOOL => Ok((4, 4)),
            op::TYPE_INT | op::TYPE_FLOAT => {
                let bytes = (arg(0) / 8).max(1) as u64;
                Ok((bytes, bytes))
            }
            op::TYPE_VECTOR | op::TYPE_MATRIX => {
                let (size, align) = self.layout(arg(0))?;
                let n = arg(1) as u64;
                Ok((size * n, align * n.next_power_of_two()))
            }
            op::TYPE_ARRAY => {
                let (size, align) = self.layout(arg(0))?;
                let len = scalar(self.values, arg(1))?;
                Ok((size.next_multiple_of(align) * len, align))
            }
            op::TYPE_STRUCT => {
                let (mut end, mut max_align) = (0u64, 1u64);
                for &member in a {
                    let (size, align) = self.layout(member)?;
                    end = end.next_multiple_of(align) + size;
                    max_align = max_align.max(align);
                }
                Ok((end.next_multiple_of(max_align), max_align))
            }
            _ => Err(format!("type %{ty} not understood")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders::radix_upsweep as up;

    /// Every shipped shader's workgroup memory evaluates with its default constants.
    #[test]
    fn every_shader_evaluates() {
        for (name, _) in crate::shaders::SHADERS {
            let words = crate::shaders::spirv(name).unwrap();
            let bytes = workgroup_bytes(&words, &Spec::new());
            assert!(bytes.is_ok(), "{name}: {bytes:?}");
        }
    }

    /// A length from a constant set: `s_hist[RADIX]`, `RADIX = 1u << DIGIT_BITS` (an `OpSpecConstantOp`).
    #[test]
    fn lengths_follow_the_constants() {
        let words = up::SHADER.spirv().unwrap();
        let at = |bits| workgroup_bytes(&words, &Spec::new().with(up::DIGIT_BITS, bits)).unwrap();
        assert_eq!(at(8), 1024);
        assert_eq!(at(4), 64);
    }
}
