//! Unit tests of the hazard tracker (`sync.rs`).
use super::*;
use ash::vk::Handle as _;

fn buf(id: u64) -> (ResourceId, Handle) {
    (ResourceId(id), Handle::Buffer(vk::Buffer::from_raw(id)))
}

fn img(id: u64) -> (ResourceId, Handle) {
    (ResourceId(id), Handle::Image(vk::Image::from_raw(id)))
}

fn hazards(t: &Tracker, before: u64) -> Vec<Hazard> {
    t.log()
        .iter()
        .filter(|r| r.before == CommandId(before))
        .map(|r| r.hazard)
        .collect()
}

#[test]
fn upload_then_read_is_raw_then_read_after_read_is_free() {
    let mut t = Tracker::default();
    let (a, h) = buf(1);
    assert!(t
        .plan(CommandId(1), "upload", &[Usage::transfer_write(a, h)])
        .is_empty());
    let b = t.plan(
        CommandId(2),
        "launch k",
        &[Usage::shader(a, h, true, false)],
    );
    assert_eq!(b.buffers.len(), 1);
    assert_eq!(b.src_stages, vk::PipelineStageFlags::TRANSFER);
    assert_eq!(b.dst_stages, vk::PipelineStageFlags::COMPUTE_SHADER);
    assert_eq!(hazards(&t, 2), vec![Hazard::ReadAfterWrite]);
    assert!(t
        .plan(
            CommandId(3),
            "launch k",
            &[Usage::shader(a, h, true, false)]
        )
        .is_empty());
    let log = t.log();
    let r = &log[0];
    assert_eq!(
        (r.src_access.as_str(), r.dst_access.as_str()),
        ("TRANSFER_WRITE", "SHADER_READ")
    );
}

#[test]
fn write_after_read_is_execution_only_and_write_after_write_is_logged() {
    let mut t = Tracker::default();
    let (a, h) = buf(1);
    t.plan(
        CommandId(1),
        "launch w",
        &[Usage::shader(a, h, false, true)],
    );
    t.plan(
        CommandId(2),
        "launch r",
        &[Usage::shader(a, h, true, false)],
    );
    let b = t.plan(
        CommandId(3),
        "launch w",
        &[Usage::shader(a, h, false, true)],
    );
    assert_eq!(hazards(&t, 3), vec![Hazard::WriteAfterRead]);
    assert_eq!(b.buffers[0].src_access_mask, vk::AccessFlags::empty());
    t.plan(
        CommandId(4),
        "launch w",
        &[Usage::shader(a, h, false, true)],
    );
    assert_eq!(hazards(&t, 4), vec![Hazard::WriteAfterWrite]);
}

#[test]
fn raw_visibility_is_per_stage() {
    // A compute write read by a copy is not thereby visible to a later shader read.
    let mut t = Tracker::default();
    let (a, h) = buf(1);
    t.plan(
        CommandId(1),
        "launch w",
        &[Usage::shader(a, h, false, true)],
    );
    t.plan(CommandId(2), "download", &[Usage::transfer_read(a, h)]);
    t.plan(
        CommandId(3),
        "launch rw",
        &[Usage::shader(a, h, true, true)],
    );
    assert_eq!(hazards(&t, 2), vec![Hazard::ReadAfterWrite]);
    assert_eq!(hazards(&t, 3), vec![Hazard::ReadAfterWrite]);
    assert_eq!(t.log()[1].src_stage, "COMPUTE_SHADER|TRANSFER");
}

#[test]
fn image_first_use_is_one_transition_then_raw() {
    let mut t = Tracker::default();
    let (i, h) = img(7);
    let b = t.plan(
        CommandId(1),
        "launch fill",
        &[Usage::shader(i, h, false, true)],
    );
    assert_eq!(b.images.len(), 1);
    assert_eq!(b.images[0].old_layout, vk::ImageLayout::UNDEFINED);
    assert_eq!(hazards(&t, 1), vec![Hazard::LayoutTransition]);
    let b = t.plan(
        CommandId(2),
        "launch rmw",
        &[Usage::shader(i, h, true, true)],
    );
    assert_eq!(b.images[0].old_layout, vk::ImageLayout::GENERAL);
    assert_eq!(hazards(&t, 2), vec![Hazard::ReadAfterWrite]);
    let log = t.log();
    assert_eq!(log[0].old_layout.as_deref(), Some("UNDEFINED"));
    assert_eq!(log[0].new_layout.as_deref(), Some("GENERAL"));
    assert_eq!(log[1].dst_access, "SHADER_READ|SHADER_WRITE");
}

#[test]
fn unrelated_resources_and_duplicate_bindings() {
    let mut t = Tracker::default();
    let (a, ha) = buf(1);
    let (b, hb) = buf(2);
    t.plan(
        CommandId(1),
        "launch f",
        &[Usage::shader(a, ha, false, true)],
    );
    assert!(t
        .plan(
            CommandId(2),
            "launch f",
            &[Usage::shader(b, hb, false, true)]
        )
        .is_empty());
    // The same buffer bound twice in one launch gives one barrier.
    let batch = t.plan(
        CommandId(3),
        "launch c",
        &[
            Usage::shader(a, ha, true, false),
            Usage::shader(a, ha, false, true),
        ],
    );
    assert_eq!(batch.buffers.len(), 1);
    assert_eq!(hazards(&t, 3), vec![Hazard::ReadAfterWrite]);
}

#[test]
fn a_full_log_drops_its_oldest_records_and_keeps_the_newest_in_order() {
    let mut t = Tracker::default();
    let (a, h) = buf(1);
    let label: Arc<str> = Arc::from("launch rmw");
    let mut batch = BarrierBatch::default();
    // Each read-modify-write of the same buffer needs one barrier (one record).
    let commands = LOG_CAP + LOG_CHUNK + 7;
    for i in 0..commands as u64 {
        t.plan_into(
            CommandId(i),
            &label,
            &[Usage::shader(a, h, true, true)],
            &mut batch,
        );
    }
    let log = t.log();
    // The first command has nothing to wait for; every later one logs one barrier.
    let logged = commands - 1;
    assert!(log.len() <= LOG_CAP && log.len() > LOG_CAP - LOG_CHUNK);
    assert_eq!(log.last().unwrap().before, CommandId(logged as u64));
    assert!(log.windows(2).all(|w| w[1].before.0 == w[0].before.0 + 1));
    assert!(log.iter().all(|r| r.before_label == "launch rmw"));
    t.clear_log();
    assert!(t.log().is_empty());
}
